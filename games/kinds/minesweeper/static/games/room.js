// The few lines a Minesweeper room needs beyond htmx, live.js (the socket, the connection line,
// version checks, the link copy) and board.js (focus, keys, clicks, long-press): what a move
// means here (cells pending until answered, lean moves), cursors of other players, the timer
// and the zoom. The server owns the game: this file only sends intentions and shows what
// it is told.
(function () {
  "use strict";

  const room = document.querySelector(".room[ws-connect]");
  if (!room || !window.LiveRoom) return;
  const mySeat = room.dataset.seat;
  const watching = mySeat === "";
  const HOVER_MS = 120; // the server sends on at most one per 100 ms
  const CURSOR_STILL_MS = 4000; // another player's pointer fades after this long without moving
  const CURSOR_FADE_MS = 400;
  const live = window.LiveRoom(room, afterMessage);
  const ping = (cell) => send({ action: "ping", x: +cell.dataset.x, y: +cell.dataset.y });
  const input = window.BoardInput(room, { canMove, move, flagging: true, ping: watching ? null : ping }); // board.js
  const { board, cellAt } = input;
  let lastHover = 0;
  const cursors = new Map();

  function send(message) {
    live.send(message);
  }

  // --- clicks on their way ------------------------------------------------------------------
  // A cell clicked is marked pending (data-pending, this page's own: the server never sends it)
  // until the server's answer replaces it; a snapshot replaces the whole board. A move sent on a
  // socket that then died (the process was killed) is never answered: when the snapshot after
  // the reconnect still shows such a cell as it was, the click did not land, and the page says
  // so. Clicks made while the socket is down wait in live.js (for a few seconds at most) and go
  // out on the reconnect, after its snapshot was taken: those are not judged by it.
  const pending = new Map(); // "x,y" -> { state, connection, sentOpen }
  let socketOpen = false;
  let connection = 0; // counts the socket's connections
  room.addEventListener("htmx:wsOpen", () => { socketOpen = true; connection += 1; });
  room.addEventListener("htmx:wsClose", () => { socketOpen = false; });

  function markPending(cells) {
    for (const cell of cells) {
      cell.dataset.pending = "true";
      pending.set(`${cell.dataset.x},${cell.dataset.y}`, {
        state: cell.dataset.state, connection: connection, sentOpen: socketOpen,
      });
    }
  }
  // Which cells a move will change, so that its answer replaces them: the cell itself, or for a
  // chord the hidden neighbours (only when the flags around match the number: else nothing
  // changes and no answer comes).
  function changedBy(action, cell) {
    if (cell.dataset.state !== "revealed") return [cell];
    const around = neighbours(cell);
    const flags = around.filter((c) => c.dataset.state === "flagged").length;
    if (String(flags) !== cell.dataset.count) return [];
    return around.filter((c) => c.dataset.state === "hidden");
  }
  function afterPending(message) {
    if (!pending.size) return;
    if (message.includes('id="board"')) {
      let lost = false;
      for (const [key, sent] of pending) {
        const [x, y] = key.split(",");
        const stale = sent.sentOpen && sent.connection < connection;
        if (stale && cellAt(x, y)?.dataset.state === sent.state) lost = true;
      }
      pending.clear(); // the snapshot's board has no marks
      document.querySelectorAll(".cell[data-pending]").forEach((c) => c.removeAttribute("data-pending"));
      if (lost) showClickLost();
      return;
    }
    if (/id="room-error"[^>]*><span>/.test(message)) {
      // Refused (the game ended meanwhile, a spectator...): the error says why; nothing is coming.
      pending.clear();
      document.querySelectorAll(".cell[data-pending]").forEach((c) => c.removeAttribute("data-pending"));
      return;
    }
    for (const key of [...pending.keys()]) {
      const [x, y] = key.split(",");
      if (cellAt(x, y)?.dataset.pending !== "true") pending.delete(key); // replaced: answered
    }
  }
  function showClickLost() {
    live.notify("Your last click did not reach the server — try again.");
  }
  // Moves made with the socket down and dropped by live.js: their cells are not coming.
  room.addEventListener("live:dropped", () => {
    for (const [key, sent] of pending) {
      if (sent.sentOpen) continue;
      pending.delete(key);
      cellAt(...key.split(","))?.removeAttribute("data-pending");
    }
  });

  room.addEventListener("htmx:wsBeforeMessage", () => { lean = null; });

  // --- lean moves ------------------------------------------------------------------------------
  // A move's cells come bare (id, data-state, data-count): each is updated in place (it keeps
  // data-x, data-y, its class, tabindex and focus) and gets its label here. Most moves are lean
  // too: #game-meta with the mover's seat and name, and the cells, nothing else; this page then
  // derives the rest as the server used to write it: the mines counter, the mover's share of the
  // board and the line the live region announces. (A game's first and last moves bring those.)
  // The words are the server's (#cell-words, from games/kinds/minesweeper/words.py): this file
  // only fills their {fields}, so a wording lives in one place.
  const WORDS = JSON.parse(document.getElementById("cell-words")?.textContent || "{}");
  function say(key, fields) {
    let entry = WORDS[key] ?? key;
    if (typeof entry === "object") { // a plural entry: words.py's rule
      const n = +fields.count;
      entry = n === 0 && "zero" in entry ? entry.zero : n === 1 ? entry.one : entry.other;
    }
    return entry.replace(/\{(\w+)\}/g, (_, name) => String(fields[name]));
  }
  let lean = null; // this message's lean move: { name, seat, flags, revealed, last }
  function cellLabel(x, y, state, count) {
    const what = say(state, { count });
    return say("cell", { row: y + 1, column: x + 1, what });
  }
  room.addEventListener("htmx:oobBeforeSwap", (event) => {
    const incoming = event.detail.fragment?.firstElementChild;
    const target = event.detail.target;
    if (!incoming || incoming.hasAttribute("class")) return; // a full element: swapped as sent
    if (target.id === "game-meta" && incoming.dataset.by !== undefined) {
      lean = { name: incoming.dataset.by, seat: incoming.dataset.seat, flags: 0, revealed: 0, last: null };
    } else if (target.classList.contains("cell") && incoming.id === target.id) {
      event.detail.shouldSwap = false;
      const before = target.dataset.state;
      const { state, count } = window.updateLeanCell(target, incoming);
      const x = +target.dataset.x;
      const y = +target.dataset.y;
      target.setAttribute("aria-label", cellLabel(x, y, state, count));
      if (!lean) return;
      lean.flags += (state === "flagged") - (before === "flagged");
      lean.revealed += state === "revealed" && before !== "revealed";
      lean.last = { x, y, state };
    }
  });
  // A board over 1,000 cells comes compact (render.py's COMPACT_CELLS: a 50×50 page had been
  // 416 KB): its cells carry the markup contract and their class only; their label, tabindex
  // and type are restored here from their data, as the server writes them on smaller boards.
  function completeCells() {
    const b = board();
    if (!b || !b.hasAttribute("data-compact")) return;
    for (const cell of b.querySelectorAll(".cell:not([aria-label])")) {
      const { x, y, state, count } = cell.dataset;
      cell.setAttribute("aria-label", cellLabel(+x, +y, state, count));
      if (!cell.hasAttribute("tabindex")) cell.setAttribute("tabindex", "-1");
      cell.type = "button";
    }
  }
  completeCells();

  function afterLean() {
    if (!lean) return;
    const { name, seat, flags, revealed, last } = lean;
    lean = null;
    const left = document.getElementById("mines-left");
    if (left && flags) {
      const n = parseInt(left.textContent, 10) - flags;
      left.textContent = n < 0 ? `-${String(-n).padStart(2, "0")}` : String(n).padStart(3, "0");
    }
    const share = document.getElementById(`share-${seat}`);
    if (share && revealed) share.textContent = String(+share.textContent + revealed);
    let line = say("moved", { name });
    if (revealed) line = say("opened", { name, count: revealed });
    else if (last?.state === "flagged") line = say("flagged-at", { name, row: last.y + 1, column: last.x + 1 });
    else if (last?.state === "hidden") line = say("unflagged", { name });
    const narration = document.getElementById("narration");
    if (narration) narration.textContent = line; // the live region stays: its text changes
  }

  // After every message (live.js has already checked its version and updated the board's data).
  function afterMessage(event) {
    completeCells();
    afterLean();
    afterPending(event?.detail?.message || "");
    sizeBoard();
    applyCursor();
    input.restoreFocus(); // swapped-in cells are new elements: focus would fall back to <body>
    markMe();
    window.Countdowns.tick();
  }

  // --- moves (board.js's BoardInput reads the input and guards what a cell allows) -------------
  function canMove() { return !watching && board().dataset.status === "playing"; }
  function move(action, cell) {
    send({ action: action, x: +cell.dataset.x, y: +cell.dataset.y });
    markPending(changedBy(action, cell));
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
    return neighbours(cell).filter((near) => near.dataset.state === "hidden");
  }
  function neighbours(cell) {
    const x = +cell.dataset.x;
    const y = +cell.dataset.y;
    const around = [];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const near = (dx || dy) ? cellAt(x + dx, y + dy) : null;
        if (near) around.push(near);
      }
    }
    return around;
  }

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
  // Each pointer is remembered per seat and drawn again after every message (a swapped-in cell
  // is a new element). It fades once its player has been still for a few seconds, and goes with
  // the game it was shown in: never onto a finished board or into the next game.
  function applyCursor() {
    const feed = document.getElementById("cursor-feed");
    if (feed && feed.dataset.seat) {
      const seat = feed.dataset.seat;
      delete feed.dataset.seat;
      if (seat !== mySeat) showCursor(seat, feed.dataset);
    }
    drawCursors();
  }
  function showCursor(seat, data) {
    clearTimeout(cursors.get(seat)?.timer);
    const cursor = {
      x: data.x, y: data.y, colour: data.colour, name: data.name || "",
      game: board()?.dataset.game, fading: false,
    };
    cursor.timer = setTimeout(() => {
      cursor.fading = true;
      drawCursors();
      cursor.timer = setTimeout(() => { cursors.delete(seat); drawCursors(); }, CURSOR_FADE_MS);
    }, CURSOR_STILL_MS);
    cursors.set(seat, cursor);
  }
  function drawCursors() {
    const b = board();
    if (!b) return;
    b.querySelectorAll(".cell[data-cursor]").forEach((c) => {
      for (const name of ["data-cursor", "data-initial", "data-cursor-fading", "title"]) c.removeAttribute(name);
    });
    for (const [seat, cursor] of cursors) {
      if (b.dataset.status !== "playing" || cursor.game !== b.dataset.game) {
        clearTimeout(cursor.timer);
        cursors.delete(seat);
        continue;
      }
      const cell = cellAt(cursor.x, cursor.y);
      if (!cell) continue;
      cell.dataset.cursor = cursor.colour;
      cell.dataset.initial = (Array.from(cursor.name.trim())[0] || "?").toUpperCase();
      cell.title = cursor.name;
      if (cursor.fading) cell.dataset.cursorFading = "true";
    }
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
    const text = String(Math.min(999, Math.max(0, Math.floor(seconds)))).padStart(3, "0");
    if (timer.textContent !== text) timer.textContent = text;
  }

  // --- the board's size and zoom (board.js's BoardZoom) -----------------------------------------
  // CSP forbids inline styles in the markup, so the won banner's split bar is sized here
  // through the CSSOM, after every size.
  const zoom = window.BoardZoom(room, {
    reservedPx: 230, // above and below the board; the end banner floats over it: no room kept
    afterSize() {
      document.querySelectorAll(".split-bar [data-percent]").forEach((part) => {
        part.style.width = `${part.dataset.percent}%`;
      });
    },
  });
  const sizeBoard = zoom.size;

  // The end banner's ×: a look at the rows beneath it; the next game's banner comes back.
  room.addEventListener("click", (event) => {
    if (!event.target.closest("[data-banner-close]")) return;
    document.getElementById("banner").hidden = true;
    document.getElementById("face")?.querySelector("button")?.focus();
  });

  sizeBoard();
  markMe();
  window.Countdowns.every(tick);
  input.focusCell(0, 0, false);
})();
