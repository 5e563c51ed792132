// The few lines a Minesweeper room needs beyond htmx and live.js (the socket, the connection line,
// version checks, the link copy): input (click, flag, keyboard, long-press), cursors of other
// players and the timer. The server owns the game: this file only sends intentions and shows what
// it is told.
(function () {
  "use strict";

  const room = document.querySelector(".room[ws-connect]");
  if (!room || !window.LiveRoom) return;
  const mySeat = room.dataset.seat;
  const watching = mySeat === "";
  const LONG_PRESS_MS = 450;
  const HOVER_MS = 120; // the server sends on at most one per 100 ms
  const live = window.LiveRoom(room, afterMessage);
  let lastHover = 0;
  let focusX = 0;
  let focusY = 0;
  const cursors = new Map();

  function send(message) {
    live.send(message);
  }

  function board() { return document.getElementById("board"); }
  function cellAt(x, y) { return document.getElementById(`cell-${x}-${y}`); }

  // Swapped-in cells are new elements, so focus inside the board would fall back to <body>.
  let focusWasInBoard = false;
  room.addEventListener("htmx:wsBeforeMessage", () => {
    focusWasInBoard = Boolean(document.activeElement?.closest("#board"));
  });

  // After every message (live.js has already checked its version and updated the board's data).
  function afterMessage() {
    sizeBoard();
    applyCursor();
    restoreFocus();
    markMe();
    tick();
  }

  // --- moves --------------------------------------------------------------------------------
  function move(action, cell) {
    if (watching || !cell || board().dataset.status !== "playing") return;
    const state = cell.dataset.state;
    if (action === "flag" && state !== "hidden" && state !== "flagged") return;
    if (action === "reveal" && state === "flagged") return;
    send({ action: action, x: +cell.dataset.x, y: +cell.dataset.y });
  }

  let suppressClick = false;
  room.addEventListener("click", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    if (suppressClick) { suppressClick = false; return; }
    focusCell(+cell.dataset.x, +cell.dataset.y, false);
    move(event.shiftKey ? "flag" : "reveal", cell);
  });
  room.addEventListener("contextmenu", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    event.preventDefault();
    move("flag", cell);
  });

  // Touch: a long press flags, a tap reveals.
  let pressTimer = null;
  room.addEventListener("touchstart", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    pressTimer = setTimeout(() => {
      pressTimer = null;
      suppressClick = true;
      move("flag", cell);
      if (navigator.vibrate) navigator.vibrate(15);
    }, LONG_PRESS_MS);
  }, { passive: true });
  for (const type of ["touchend", "touchmove", "touchcancel"]) {
    room.addEventListener(type, () => { if (pressTimer) clearTimeout(pressTimer); pressTimer = null; });
  }

  // Pressed look: the cell, or the hidden neighbours of a number about to chord.
  room.addEventListener("pointerdown", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell || event.button !== 0 || watching) return;
    pressed(cell).forEach((c) => c.classList.add("pressed"));
  });
  document.addEventListener("pointerup", () => {
    document.querySelectorAll(".cell.pressed").forEach((c) => c.classList.remove("pressed"));
  });
  function pressed(cell) {
    if (cell.dataset.state === "hidden") return [cell];
    if (cell.dataset.state !== "revealed" || cell.dataset.count === "0") return [];
    const x = +cell.dataset.x;
    const y = +cell.dataset.y;
    const around = [];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const near = cellAt(x + dx, y + dy);
        if (near && near.dataset.state === "hidden") around.push(near);
      }
    }
    return around;
  }

  // --- keyboard: a roving focus over the grid ------------------------------------------------
  function focusCell(x, y, moveFocus = true) {
    const b = board();
    const width = +b.dataset.width;
    const height = +b.dataset.height;
    focusX = Math.max(0, Math.min(width - 1, x));
    focusY = Math.max(0, Math.min(height - 1, y));
    b.querySelectorAll('.cell[tabindex="0"]').forEach((c) => c.setAttribute("tabindex", "-1"));
    const cell = cellAt(focusX, focusY);
    if (!cell) return;
    cell.setAttribute("tabindex", "0");
    if (moveFocus) cell.focus();
  }
  function restoreFocus() {
    const lost = !document.activeElement || document.activeElement === document.body;
    focusCell(focusX, focusY, focusWasInBoard && lost);
  }
  room.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (steps[event.key]) {
      event.preventDefault();
      focusCell(focusX + steps[event.key][0], focusY + steps[event.key][1]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      move("reveal", cell);
    } else if (event.key === "f" || event.key === "F") {
      event.preventDefault();
      move("flag", cell);
    }
  });

  // --- other players' pointers --------------------------------------------------------------
  // Throttled with a trailing send, so the last cell the pointer rests on always goes out
  // (a plain throttle would drop it and leave the outline one cell behind).
  let hoverTimer = null;
  let hoverCell = null;
  function sendHover() {
    hoverTimer = null;
    lastHover = performance.now();
    send({ action: "hover", x: +hoverCell.dataset.x, y: +hoverCell.dataset.y });
  }
  room.addEventListener("pointerover", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell || watching || event.pointerType === "touch") return;
    hoverCell = cell;
    if (hoverTimer) return;
    const wait = HOVER_MS - (performance.now() - lastHover);
    if (wait <= 0) sendHover();
    else hoverTimer = setTimeout(sendHover, wait);
  });
  function applyCursor() {
    const feed = document.getElementById("cursor-feed");
    if (!feed || !feed.dataset.seat) return;
    const seat = feed.dataset.seat;
    delete feed.dataset.seat;
    if (seat === mySeat) return;
    const previous = cursors.get(seat);
    if (previous) {
      previous.removeAttribute("data-cursor");
      previous.removeAttribute("title");
    }
    const cell = cellAt(feed.dataset.x, feed.dataset.y);
    if (!cell) return;
    cell.dataset.cursor = feed.dataset.colour;
    cell.title = feed.dataset.name;
    cursors.set(seat, cell);
  }

  function markMe() {
    document.querySelectorAll(".roster-player").forEach((li) => {
      li.classList.toggle("me", li.dataset.seat === mySeat);
    });
  }

  // --- timer --------------------------------------------------------------------------------
  function tick() {
    const timer = document.getElementById("timer");
    if (!timer) return;
    const started = Date.parse(timer.dataset.started);
    const finished = Date.parse(timer.dataset.finished);
    let seconds = 0;
    if (!Number.isNaN(started)) seconds = ((Number.isNaN(finished) ? Date.now() : finished) - started) / 1000;
    timer.textContent = String(Math.min(999, Math.max(0, Math.floor(seconds)))).padStart(3, "0");
  }
  setInterval(tick, 1000);

  // The board's size drives its CSS grid and the cell size; CSP forbids inline styles in the
  // markup, so they are set here through the CSSOM. Same for the won banner's split bar.
  function sizeBoard() {
    const b = board();
    if (!b) return;
    room.style.setProperty("--cols", b.dataset.width);
    room.style.setProperty("--rows", b.dataset.height);
    document.querySelectorAll(".split-bar [data-percent]").forEach((part) => {
      part.style.width = `${part.dataset.percent}%`;
    });
  }
  sizeBoard();
  markMe();
  tick();
  focusCell(0, 0, false);
})();
