// Lights Out: a light marked toggles with its neighbours (the toy kind of the shell's tests).
document.addEventListener("click", (event) => {
  const light = event.target.closest("[id^='light-']");
  if (light) light.dataset.on = light.dataset.on === "true" ? "false" : "true";
});
