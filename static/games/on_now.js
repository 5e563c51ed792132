// The home page's "On now" panel (games/web/on_now.py): a live game shown small. Its stage opens
// the room's spectator socket (the watch page's own path and fragments, a race's delay included);
// this script keeps, of each message, only the elements whose ids the stage holds (the board, a
// race's rival boards, the version), sizes the cells to the stage, and asks for the panel again
// a few seconds after its game is over. The panel polls itself too (hx-trigger): a new answer is
// taken only when the pick changed, otherwise only its words (names, watchers) are.
(function () {
  "use strict";
  const OVER_PAUSE_MS = 4000; // the end of the game stays in view this long before the next pick

  // An htmx extension beside hx-ws: the message is cut to what the stage can show, so the room
  // page's other fragments (roster, chat, narration…) are dropped here rather than reported by
  // htmx as swaps without a target.
  htmx.defineExtension("on-now", {
    transformResponse: function (text, xhr, stage) {
      const template = document.createElement("template");
      template.innerHTML = text;
      for (const element of Array.from(template.content.children)) {
        const id = element.id;
        if (!id || !stage.querySelector("#" + CSS.escape(id))) element.remove();
      }
      return template.innerHTML;
    },
  });

  function fit(stage) {
    const board = stage.querySelector("#board");
    const cols = +(board && board.dataset.width) || 9;
    const rows = +(board && board.dataset.height) || 9;
    const room = stage.clientWidth - 12; // the board's frame
    stage.style.setProperty("--cols", cols);
    stage.style.setProperty("--rows", rows);
    stage.style.setProperty("--cell", Math.max(6, Math.min(18, Math.floor(room / cols))) + "px");
    const mini = stage.querySelector(".mini-board");
    if (mini) {
      const card = mini.closest(".rival") || stage;
      const mcols = +mini.dataset.width || 9;
      stage.style.setProperty("--mcols", mcols);
      stage.style.setProperty("--mcell", Math.max(3, Math.min(12, Math.floor((card.clientWidth - 8) / mcols))) + "px");
    }
  }

  // One LiveRoom for the panel's column, which outlives the panel: each new panel's socket
  // reports to it (the connection line, version gaps asking for a snapshot).
  const column = document.querySelector(".home-side");
  if (!column || !document.getElementById("on-now")) return;
  let overTimer = null;
  window.LiveRoom(column, () => {
    const panel = document.getElementById("on-now");
    const stage = panel && panel.querySelector(".on-now-stage");
    if (!stage) return;
    fit(stage);
    const meta = stage.querySelector("#game-meta");
    const over = Boolean(meta && meta.dataset.status && meta.dataset.status !== "playing");
    panel.classList.toggle("over", over);
    if (over && !overTimer) {
      overTimer = setTimeout(() => { overTimer = null; htmx.trigger(panel, "on-now-over"); }, OVER_PAUSE_MS);
    }
  });

  column.addEventListener("htmx:oobBeforeSwap", (event) => {
    const incoming = event.detail.fragment?.firstElementChild;
    const target = event.detail.target;
    if (!incoming || incoming.hasAttribute("class") || !target.classList.contains("cell")) return;
    event.detail.shouldSwap = false; // a lean move's cell: updated in place, as on the room page
    window.updateLeanCell(target, incoming);
  });

  document.addEventListener("htmx:beforeSwap", (event) => {
    const panel = event.detail.target;
    if (!panel || panel.id !== "on-now" || !panel.dataset.pick) return;
    const next = document.createElement("template");
    next.innerHTML = event.detail.serverResponse;
    const fresh = next.content.querySelector("#on-now");
    if (!fresh || fresh.dataset.pick !== panel.dataset.pick) return; // a new pick: swap it in
    event.detail.shouldSwap = false; // the same game: keep its socket, take the new words
    const words = fresh.querySelector(".on-now-who");
    const mine = panel.querySelector(".on-now-who");
    if (words && mine) mine.innerHTML = words.innerHTML;
    if (panel.classList.contains("over") && !overTimer) { // the server has not seen the end yet
      overTimer = setTimeout(() => { overTimer = null; htmx.trigger(panel, "on-now-over"); }, OVER_PAUSE_MS);
    }
  });
  function refit() {
    const stage = document.querySelector(".on-now-stage");
    if (stage) fit(stage);
  }
  document.addEventListener("htmx:afterSettle", refit);
  window.addEventListener("resize", refit);
  refit();
})();
