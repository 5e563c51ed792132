// Room chat (templates/games/chat.html): tabs for the two channels, the players' choice to hide
// the spectators' tab, the input cleared once sent, and each log kept to the last 50 lines
// (a line the snapshot already showed and that arrives again is shown once).
(function () {
  "use strict";
  const KEPT = 50;
  const panel = document.getElementById("chat");
  if (!panel) return;
  const tabs = Array.from(panel.querySelectorAll('[role="tab"]'));
  const hide = panel.querySelector(".chat-hide-spectators");
  const fold = panel.querySelector(".chat-fold");
  const form = panel.querySelector(".chat-form");
  const input = panel.querySelector(".chat-input");
  const HIDDEN_KEY = "chat-hide-spectators";

  function select(tab) {
    for (const each of tabs) {
      const on = each === tab;
      each.setAttribute("aria-selected", on ? "true" : "false");
      each.tabIndex = on ? 0 : -1;
      document.getElementById(each.getAttribute("aria-controls")).hidden = !on;
    }
  }

  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const shown = tabs.filter((each) => !each.hidden);
      const next = shown[(shown.indexOf(tab) + step + shown.length) % shown.length];
      select(next);
      next.focus();
      event.preventDefault();
    });
  });

  function hideSpectators(hidden) {
    const tab = document.getElementById("chat-tab-spectators");
    tab.hidden = hidden;
    hide.setAttribute("aria-pressed", hidden ? "true" : "false");
    hide.textContent = hidden ? "Show spectators" : "Hide spectators";
    if (hidden && tab.getAttribute("aria-selected") === "true") select(tabs[0]);
    try { localStorage.setItem(HIDDEN_KEY, hidden ? "1" : ""); } catch (e) { /* private mode */ }
  }
  if (hide) {
    hide.addEventListener("click", () => hideSpectators(hide.getAttribute("aria-pressed") !== "true"));
    let stored = "";
    try { stored = localStorage.getItem(HIDDEN_KEY) || ""; } catch (e) { /* private mode */ }
    if (stored) hideSpectators(true);
  }

  // Phones: the chat starts folded under the board; a tap on its heading opens it.
  if (window.matchMedia("(max-width: 40rem)").matches) fold.open = false;

  function tidy() {
    for (const log of panel.querySelectorAll(".chat-log")) {
      const seen = new Set();
      const lines = Array.from(log.querySelectorAll(".chat-message")).reverse();
      for (const line of lines) {
        if (seen.has(line.id)) line.remove();
        else seen.add(line.id);
      }
      const kept = log.querySelectorAll(".chat-message");
      for (let i = 0; i < kept.length - KEPT; i++) kept[i].remove();
      log.scrollTop = log.scrollHeight;
    }
  }
  document.body.addEventListener("htmx:wsAfterMessage", tidy);
  // A line the server refuses (the host muted you, too fast...) comes back into the box, with
  // the error beside it (live.js), rather than vanish: the answer to a line is a chat line or a
  // refusal; other messages (moves, presence) may come between.
  let unanswered = null;
  document.body.addEventListener("htmx:wsAfterSend", (event) => {
    if (event.target !== form && !form.contains(event.target)) return;
    unanswered = input.value;
    input.value = "";
  });
  document.body.addEventListener("htmx:wsAfterMessage", (event) => {
    const message = event.detail.message;
    if (unanswered === null) return;
    const refused = /id="room-error"[^>]*><span>/.test(message);
    if (refused && !input.value) input.value = unanswered;
    if (refused || message.includes('class="chat-message"')) unanswered = null;
  });
  form.addEventListener("submit", (event) => {
    if (!input.value.trim()) event.preventDefault();
  });
})();
