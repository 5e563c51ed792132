// The host's menu (games/host.py, templates/games/host.html): the server swaps in the menu's new
// state after every host command, and empties it on a screen whose seat no longer hosts. This
// shows or hides the menu's fold to match, keeps the keyboard focus on the control just used
// across the swap, and keeps the room's data-host (which shows the host's other controls: a race's Start, the bot)
// in step with who hosts now.
(function () {
  "use strict";
  const room = document.querySelector(".room");
  const slot = document.getElementById("host-menu");
  if (!room || !slot) return;
  const fold = slot.closest("details");
  let focused = null; // data-host-key of the control last focused in the menu

  document.addEventListener("focusin", (event) => {
    const control = event.target.closest && event.target.closest("#host-menu [data-host-key]");
    focused = control ? control.dataset.hostKey : null;
  });

  function settle() {
    const menu = document.getElementById("host-menu");
    const hosting = menu.children.length > 0;
    fold.hidden = !hosting;
    if (hosting) room.dataset.host = "true";
    else delete room.dataset.host;
    if (hosting && focused && (!document.activeElement || document.activeElement === document.body)) {
      const again = menu.querySelector(`[data-host-key="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    }
  }
  room.addEventListener("htmx:oobAfterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "host-menu") settle();
  });
})();
