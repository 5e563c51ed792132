// The daily page's "Copy" button: the share text to the clipboard, or selected for a manual
// copy where the clipboard is refused (an insecure origin, a browser's permission).
document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("copy-share");
  const text = document.getElementById("share-text");
  const status = document.getElementById("copy-status");
  if (!button || !text || !status) return;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text.value);
      status.textContent = "Copied.";
    } catch {
      text.select();
      status.textContent = "Press Ctrl+C (⌘C) to copy.";
    }
  });
});
