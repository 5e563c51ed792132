// The room's past games (templates/games/history.html) fetched again when a game ends, so the
// game just finished is listed with its replay without reloading the page.
(() => {
  "use strict";
  const section = document.getElementById("room-history");
  if (!section || !window.htmx) return;
  const url = section.dataset.url;
  // The board says which game is on and how it stands; a race's #board is the viewer's own
  // (no game number, its status theirs), so there #game-meta, which leads every message, does.
  const state = () => {
    const board = document.getElementById("board");
    const meta = board && board.dataset.game ? board : document.getElementById("game-meta");
    return meta ? `${meta.dataset.game}:${meta.dataset.status}` : "";
  };
  let seen = state();
  document.addEventListener("htmx:wsAfterMessage", () => {
    const now = state();
    if (now === seen) return;
    seen = now;
    if (now.endsWith(":playing")) return; // a game started or goes on: nothing new to list
    window.htmx.ajax("GET", url, { target: "#room-history", swap: "outerHTML" });
  });
})();
