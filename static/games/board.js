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

// --- the board's size and zoom --------------------------------------------------------------------
// Co-op Minesweeper and Flags: the board uses the width it has: the cell size is what fits the
// window (no bigger than `most`, and as tall as the window allows down to `tallest`), never
// below a legible 16 px, nor below a tap target (24 px) under a finger (tapCellPx, fitCell). When
// the side panel would squeeze the board below that, the panel moves below the board. A board
// that still does not fit pans inside its frame, and the zoom control says so ("Scroll", Fit not
// pressed). Fit shows the whole board, its width and its height (a 50x50 board on a laptop),
// however small, except under a finger: there a cell stays a tap target and the board pans
// (issue 35: expert on a phone gave 11 px cells). The zoom buttons scale from the default size,
// and zoom out only as far as Fit.
window.BoardZoom = function (room, {
  reservedPx, most = 40, tallest = 20, sidePx = 300 + 32, framePx = 28, afterSize = () => {},
}) {
  const LEGIBLE_CELL_PX = 16;
  const BIGGEST_CELL_PX = 64;
  const ZOOMS = [0.5, 0.75, 1, 1.5, 2, 2.5, 3];
  const FIT = "fit";
  const narrowScreen = window.matchMedia("(max-width: 860px)");
  const board = () => document.getElementById("board");
  let zoom = 1;
  let sizes = null;

  function measure(b) {
    const cols = +b.dataset.width;
    const rows = +b.dataset.height;
    const width = room.clientWidth;
    const beside = !narrowScreen.matches && (width - sidePx - framePx) / cols >= LEGIBLE_CELL_PX;
    const availW = (beside ? width - sidePx : width) - framePx;
    const availH = window.innerHeight - reservedPx;
    const { base } = window.fitCell({ cols, rows, width: availW, height: availH, most, tallest });
    // Fit: the whole board, however small, but never under a tap target.
    const whole = Math.max(1, window.tapCellPx(), Math.min(availW / cols, availH / rows));
    const fitSize = Math.floor(Math.min(base, whole));
    const cell = zoom === FIT ? fitSize : Math.max(fitSize, Math.floor(base * zoom));
    const fits = cell * cols <= availW + 0.5 && cell * rows <= availH + 0.5;
    const scale = zoom === FIT ? cell / base : zoom; // the step itself: a floored size lies below it
    return { cols, rows, beside, base, fitSize, cell, scale, fits };
  }
  function size() {
    const b = board();
    if (!b || !b.dataset.width) return;
    // Twice: the first size can add or remove the page's scrollbar, which changes the width.
    for (let pass = 0; pass < 2; pass++) {
      sizes = measure(b);
      room.dataset.layout = sizes.beside ? "beside" : "stacked";
      window.setBoardSize(room, sizes.cols, sizes.rows, sizes.cell);
    }
    updateButtons();
    afterSize();
  }

  const button = (which) => room.querySelector(`[data-zoom="${which}"]`);
  // The next zoom step from the current scale (after Fit that may lie between two steps).
  function nextZoom(step) {
    const scale = sizes ? sizes.scale : 1;
    return step > 0 ? ZOOMS.find((z) => z > scale + 1e-6) : ZOOMS.findLast((z) => z < scale - 1e-6);
  }
  function canZoom(step) {
    const next = nextZoom(step);
    if (!sizes || next === undefined) return false;
    if (step > 0) return sizes.base * next <= BIGGEST_CELL_PX;
    return sizes.cell > sizes.fitSize; // out only as far as Fit
  }
  // Fit is pressed only when the board shows whole; it is offered while a smaller size would
  // show more of it.
  function updateButtons() {
    const zoomIn = button("in");
    if (!zoomIn || !sizes) return;
    zoomIn.disabled = !canZoom(1);
    button("out").disabled = !canZoom(-1);
    button("fit").disabled = sizes.cell <= sizes.fitSize;
    button("fit").setAttribute("aria-pressed", String(sizes.fits));
    const mode = room.querySelector(".zoom-mode");
    if (mode) mode.textContent = sizes.fits ? "" : "Scroll";
    room.querySelector(".zoom")?.setAttribute("data-zoom-level", `${Math.round(sizes.scale * 100)}`);
  }
  // Zoom around the middle of the window: the cells there stay there.
  function setZoom(next) {
    const b = board();
    const scroller = b.closest(".board-scroll");
    const before = b.getBoundingClientRect();
    const fx = Math.min(1, Math.max(0, (window.innerWidth / 2 - before.left) / before.width));
    const fy = Math.min(1, Math.max(0, (window.innerHeight / 2 - before.top) / before.height));
    zoom = next;
    size();
    const after = b.getBoundingClientRect();
    if (scroller) scroller.scrollLeft += after.left + fx * after.width - window.innerWidth / 2;
    if (after.height > window.innerHeight) {
      window.scrollBy(0, after.top + fy * after.height - window.innerHeight / 2);
    } else if (after.top < 0 || after.bottom > window.innerHeight) {
      b.scrollIntoView({ block: "nearest" }); // Fit: the whole board in the window
    }
  }
  room.addEventListener("click", (event) => {
    const pressed = event.target.closest("[data-zoom]");
    if (!pressed || pressed.disabled) return;
    const which = pressed.dataset.zoom;
    const step = which === "in" ? 1 : -1;
    if (which === "fit") setZoom(FIT);
    else if (canZoom(step)) setZoom(nextZoom(step));
  });
  window.addEventListener("resize", size);
  return { size };
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

// --- pinging on a phone ------------------------------------------------------------------------
// A long press flags (a menu asking "Flag or Ping?" made every flag two taps, issue 35), so a
// phone pings with a [data-ping-mode] button in the page: pressed, the next tap on a cell pings
// it. Alt+click and P do the same with a mouse or keys.
window.PingMode = function (room) {
  let armed = false;
  function set(on) {
    armed = on;
    room.querySelectorAll("[data-ping-mode]").forEach((toggle) => toggle.setAttribute("aria-pressed", String(on)));
  }
  room.addEventListener("click", (event) => {
    if (event.target.closest("[data-ping-mode]")) set(!armed);
  });
  return {
    // Whether this click pings (and disarms the button).
    take() {
      if (!armed) return false;
      set(false);
      return true;
    },
  };
};

// --- input on the board -------------------------------------------------------------------------
// options.canMove(): whether this viewer may move now (seated, the game on, not frozen...).
// options.move(action, cell): send it; called only for a move the cell allows.
// options.flagging: Minesweeper's flags (right-click, long press, F, tap mode); Flags has none.
// options.ping(cell): point the room at the cell (Alt+click, P, the page's Ping button; a long
// press where the board has no flags, as in Flags); null where this viewer may not (a spectator).
window.BoardInput = function (room, { canMove, move, flagging = false, ping = null }) {
  const LONG_PRESS_MS = 450;
  // A long press on a phone fires contextmenu too (Chrome on Android, around 400-500 ms in):
  // the press flags once, whichever comes first, and a contextmenu this soon after is the same.
  const SAME_PRESS_MS = 1000;
  const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const tapMode = flagging ? window.TapMode(room) : null;
  const pingMode = ping ? window.PingMode(room) : null;
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
  room.addEventListener("click", (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    if (suppressClick) { suppressClick = false; return; }
    focusOn(cell);
    if (ping && (event.altKey || pingMode.take())) {
      event.preventDefault();
      ping(cell);
      return;
    }
    act(tapMode ? tapMode.click(event, cell) : "reveal", cell);
  });
  if (!flagging && !ping) return { focusCell, restoreFocus, board, cellAt };

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
    // One press, one move: a flag (a reveal in tap-flag mode); where there are no flags, a ping.
    if (tapMode) act(tapMode.longPress(cell), cell);
    else if (ping) ping(cell);
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
