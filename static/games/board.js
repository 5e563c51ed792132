// What every board page does the same way (co-op and race Minesweeper, Flags), once: the roving
// focus and arrow keys, clicks, long-press and right-click, the guard on what a move may touch,
// the cell size that fits the window, and countdowns that run from what the server said. Loaded
// after live.js and before the page's own script, which says what a move means:
//   const input = BoardInput(room, { canMove, move, flagging });  input.restoreFocus();
// Copies of this code per page had drifted apart (issue 27: a racer's long press flagged and
// unflagged, the race page scrolled after every message).
"use strict";

// The smallest cell a board gets by default: site.css sets --tap-cell to 24 px where the pointer
// is a finger (WCAG 2.2's target size), so a mis-tap does not open the wrong cell; 0 elsewhere.
// Pinch-zoom (or a room's zoom buttons) shows a wider board whole.
window.tapCellPx = function () {
  return parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--tap-cell")) || 0;
};

// The cell size a board of cols x rows gets in width x height pixels: the size that fits, no
// bigger than `most`, as tall as the window allows down to `tallest` (below that a tall board
// scrolls the page rather than shrink), never below a legible 16 px nor a tap target under a
// finger. `fit` is what shows the whole width; `base` is what the board gets.
window.fitCell = function ({ cols, rows, width, height, most, tallest = 0 }) {
  const LEGIBLE_CELL_PX = 16;
  const fit = Math.min(most, Math.max(tallest, height / rows), width / cols);
  return { fit, base: Math.max(LEGIBLE_CELL_PX, window.tapCellPx(), fit) };
};

// Sizes go on the room element, which is never swapped: CSP forbids inline styles in the markup,
// so they go through the CSSOM, and htmx copies a swapped element's old attributes while it
// settles (a style attribute there would break the CSP).
window.setBoardSize = function (room, cols, rows, cell) {
  room.style.setProperty("--cols", cols);
  room.style.setProperty("--rows", rows);
  room.style.setProperty("--cell", `${cell}px`);
};

// --- countdowns -------------------------------------------------------------------------------
// A timed element carries the milliseconds left (or gone) when the server rendered it; the page
// counts from when it arrived, so a wrong clock here changes nothing. Per element, since a
// message swaps only some of them. One timer ticks every countdown of the page.
window.Countdowns = (function () {
  const TICK_MS = 100; // the race clock shows tenths
  const arrivals = new WeakMap();
  const ticks = [];
  let timer = null;
  function age(element) {
    if (!arrivals.has(element)) arrivals.set(element, performance.now());
    return performance.now() - arrivals.get(element);
  }
  function tick() { ticks.forEach((draw) => draw()); }
  return {
    age,
    left(element, ms) { return Math.max(0, ms - age(element)); },
    // `draw` runs now, on every tick, and after every message (the page calls tick()).
    every(draw) {
      ticks.push(draw);
      if (!timer) timer = setInterval(tick, TICK_MS);
      draw();
    },
    tick,
  };
})();

// After a game the computers played alone, "Next game in N s" counts down. The status line is no
// live region: the narration said it once, the seconds tick silently.
window.Countdowns.every(() => {
  const line = document.querySelector("#status .next-game");
  if (!line) return;
  const left = Math.ceil(window.Countdowns.left(line, Number(line.dataset.nextIn || 0) * 1000) / 1000);
  const count = line.querySelector(".next-game-count");
  if (left > 0 && count) count.textContent = String(left);
  else if (line.textContent !== "Next game starting…") line.textContent = "Next game starting…";
});

// "Tap: reveal / flag" on touch screens (co-op and race Minesweeper), as phone Minesweeper games
// offer: with flag on, a tap on a hidden or flagged cell flags it, and a long press reveals.
// Mouse and keyboard are not affected. The toggle is a [data-tap-mode] button in the page.
window.TapMode = function (room) {
  let flagging = false;
  room.addEventListener("click", (event) => {
    const toggle = event.target.closest("[data-tap-mode]");
    if (!toggle) return;
    flagging = !flagging;
    toggle.setAttribute("aria-pressed", String(flagging));
    toggle.querySelector(".tap-mode-state").textContent = flagging ? "flag" : "reveal";
  });
  const flaggable = (cell) => cell.dataset.state === "hidden" || cell.dataset.state === "flagged";
  return {
    // What a click on a cell does: a shift-click flags; so does a tap, in flag mode.
    click(event, cell) {
      const tapFlag = flagging && event.pointerType === "touch" && flaggable(cell);
      return event.shiftKey || tapFlag ? "flag" : "reveal";
    },
    // What a long press does: the other one.
    longPress(cell) { return flagging && flaggable(cell) ? "reveal" : "flag"; },
  };
};

// --- the long-press menu -------------------------------------------------------------------------
// On a phone a long press on a cell opens a small menu beside it: the move a long press makes
// (flag, or reveal in tap-flag mode) and "Ping". A long press used to flag at once; with pings it
// asks, and tap-flag mode (TapMode) stays the one-tap way to flag. Escape, a tap elsewhere or a
// scroll closes it; focus goes back to the cell.
window.PressMenu = function (room) {
  const menu = document.createElement("div");
  menu.className = "press-menu";
  menu.setAttribute("role", "menu");
  menu.hidden = true;
  room.append(menu);
  let cell = null;
  function close(refocus = true) {
    if (menu.hidden) return;
    menu.hidden = true;
    menu.replaceChildren();
    if (refocus && cell?.isConnected) cell.focus({ preventScroll: true });
    cell = null;
  }
  function open(target, items) {
    cell = target;
    menu.replaceChildren(...items.map(({ label, run }) => {
      const item = document.createElement("button");
      item.type = "button";
      item.className = "button press-menu-item";
      item.setAttribute("role", "menuitem");
      item.textContent = label;
      item.addEventListener("click", () => { close(); run(); });
      return item;
    }));
    menu.setAttribute("aria-label", target.getAttribute("aria-label") || "Cell");
    menu.hidden = false;
    // Above the cell (the finger is on it), or below when the cell is near the top.
    const box = target.getBoundingClientRect();
    const height = menu.offsetHeight;
    const top = box.top - height - 8 >= 0 ? box.top - height - 8 : box.bottom + 8;
    const left = Math.max(4, Math.min(window.innerWidth - menu.offsetWidth - 4, box.left));
    menu.style.setProperty("top", `${top}px`);
    menu.style.setProperty("left", `${left}px`);
    menu.querySelector("button").focus({ preventScroll: true });
  }
  menu.addEventListener("keydown", (event) => {
    const items = [...menu.querySelectorAll("button")];
    const at = items.indexOf(document.activeElement);
    if (event.key === "Escape") { event.preventDefault(); close(); }
    if (event.key === "ArrowDown" || event.key === "ArrowRight") items[(at + 1) % items.length].focus();
    if (event.key === "ArrowUp" || event.key === "ArrowLeft") items[(at + items.length - 1) % items.length].focus();
  });
  document.addEventListener("pointerdown", (event) => {
    if (!menu.hidden && !menu.contains(event.target)) close(false);
  });
  window.addEventListener("scroll", () => close(false), { passive: true });
  return { open, close, get isOpen() { return !menu.hidden; } };
};

// --- input on the board -------------------------------------------------------------------------
// options.canMove(): whether this viewer may move now (seated, the game on, not frozen...).
// options.move(action, cell): send it; called only for a move the cell allows.
// options.flagging: Minesweeper's flags (right-click, long press, F, tap mode); Flags has none.
// options.ping(cell): point the room at the cell (Alt+click, P, the long-press menu); null where
// this viewer may not (a spectator).
window.BoardInput = function (room, { canMove, move, flagging = false, ping = null }) {
  const LONG_PRESS_MS = 450;
  // A long press on a phone fires contextmenu too (Chrome on Android, around 400-500 ms in):
  // the press flags once, whichever comes first, and a contextmenu this soon after is the same.
  const SAME_PRESS_MS = 1000;
  const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const tapMode = flagging ? window.TapMode(room) : null;
  let focusX = 0;
  let focusY = 0;
  let focusWasInBoard = false;

  const board = () => document.getElementById("board");
  const cellAt = (x, y) => document.getElementById(`cell-${x}-${y}`);
  const cellOf = (event) => event.target.closest?.("#board .cell") || null;

  // The move guard: a flag only on a hidden or flagged cell, no reveal under a flag.
  function act(action, cell) {
    if (!cell || !canMove()) return;
    const state = cell.dataset.state;
    if (action === "flag" && state !== "hidden" && state !== "flagged") return;
    if (action === "reveal" && state === "flagged") return;
    move(action, cell);
  }

  // --- a roving focus over the grid ----------------------------------------------------------
  // One cell takes Tab. Only the keyboard scrolls the current cell into view: putting focus back
  // after a swap (a swapped-in cell is a new element) must not move the player's view.
  function focusCell(x, y, moveFocus = true, scroll = true) {
    const b = board();
    if (!b || !b.dataset.width) return;
    focusX = Math.max(0, Math.min(+b.dataset.width - 1, x));
    focusY = Math.max(0, Math.min(+b.dataset.height - 1, y));
    b.querySelectorAll('.cell[tabindex="0"]').forEach((c) => c.setAttribute("tabindex", "-1"));
    const cell = cellAt(focusX, focusY);
    if (!cell) return;
    cell.setAttribute("tabindex", "0");
    if (moveFocus) cell.focus({ preventScroll: !scroll });
  }
  const focusOn = (cell) => focusCell(+cell.dataset.x, +cell.dataset.y, false);
  // After every message: the focus goes back to the board only if it was there and a swap lost it.
  function restoreFocus() {
    const lost = !document.activeElement || document.activeElement === document.body;
    focusCell(focusX, focusY, focusWasInBoard && lost, false);
  }
  room.addEventListener("htmx:wsBeforeMessage", () => {
    focusWasInBoard = Boolean(document.activeElement?.closest("#board"));
  });
  room.addEventListener("keydown", (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    if (STEPS[event.key]) {
      event.preventDefault();
      focusCell(focusX + STEPS[event.key][0], focusY + STEPS[event.key][1]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      act("reveal", cell);
    } else if (flagging && (event.key === "f" || event.key === "F")) {
      event.preventDefault();
      act("flag", cell);
    } else if (ping && (event.key === "p" || event.key === "P") && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      ping(cell);
    }
  });

  // --- clicks, right-clicks and long presses ----------------------------------------------------
  let suppressClick = false; // the click a long press ends with
  let dismissing = false; // the tap that closes the long-press menu only closes it
  room.addEventListener("click", (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    if (suppressClick) { suppressClick = false; return; }
    if (dismissing) { dismissing = false; return; }
    focusOn(cell);
    if (ping && event.altKey) {
      event.preventDefault();
      ping(cell);
      return;
    }
    act(tapMode ? tapMode.click(event, cell) : "reveal", cell);
  });
  if (!flagging && !ping) return { focusCell, restoreFocus, board, cellAt };
  const menu = ping ? window.PressMenu(room) : null;
  room.addEventListener("pointerdown", (event) => {
    dismissing = Boolean(menu?.isOpen && !event.target.closest(".press-menu"));
  }, { capture: true });

  let pressTimer = null;
  let pressing = false; // a finger is down on a cell
  let pressedAt = -Infinity;
  function longPress(cell) {
    clearTimeout(pressTimer);
    pressTimer = null;
    suppressClick = true;
    pressedAt = performance.now();
    focusOn(cell);
    if (navigator.vibrate) navigator.vibrate(15);
    const action = tapMode ? tapMode.longPress(cell) : null;
    if (!menu) return act(action, cell);
    const items = [];
    if (action && canMove() && allows(action, cell)) {
      const label = action === "reveal" ? "Reveal" : cell.dataset.state === "flagged" ? "Unflag" : "Flag";
      items.push({ label, run: () => act(action, cell) });
    }
    items.push({ label: "Ping", run: () => ping(cell) });
    menu.open(cell, items);
  }
  function allows(action, cell) {
    const state = cell.dataset.state;
    if (action === "flag") return state === "hidden" || state === "flagged";
    return state !== "flagged";
  }
  room.addEventListener("contextmenu", (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    if (!flagging && !pressTimer && !pressing) return; // Flags: a right-click is the browser's
    event.preventDefault();
    if (pressTimer) return longPress(cell); // the phone's long press, sooner than ours
    if (pressing || performance.now() - pressedAt < SAME_PRESS_MS) return; // ours came first
    focusOn(cell);
    cell.focus({ preventScroll: true });
    act("flag", cell);
  });
  room.addEventListener("touchstart", (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    suppressClick = false; // a new touch: any click of an earlier long press is gone
    pressing = true;
    clearTimeout(pressTimer);
    pressTimer = setTimeout(() => longPress(cell), LONG_PRESS_MS);
  }, { passive: true });
  const cancel = () => { clearTimeout(pressTimer); pressTimer = null; };
  room.addEventListener("touchmove", cancel);
  for (const type of ["touchend", "touchcancel"]) {
    room.addEventListener(type, () => { cancel(); pressing = false; });
  }

  return { focusCell, restoreFocus, board, cellAt };
};
