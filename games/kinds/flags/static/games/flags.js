// Flags in the browser: clicks and keys become {"action": "reveal" | "bomb", "x", "y"} on the
// room socket, and the per-viewer touches the shared fragments leave out ("Your turn", the bomb
// button for the player allowed it, which side is yours). The server decides everything else.
(function () {
  "use strict";

  const room = document.querySelector(".room.flags[ws-connect]");
  if (!room || !window.LiveRoom) return;
  const mySeat = room.dataset.seat;
  const BLAST = 2; // the bomb opens the cells at most this far from its centre: a 5x5 square
  const live = window.LiveRoom(room, update);
  let armed = false;
  let waiting = false; // a move went out and no answer came yet: a double click sends it once

  function meta() {
    const element = document.getElementById("game-meta");
    return element ? element.dataset : {};
  }
  function myTurn(m) {
    return mySeat !== "" && m.status === "playing" && m.turnSeat === mySeat;
  }
  function mayBomb(m) {
    return myTurn(m) && m.bombSeat === mySeat;
  }

  // --- the bomb: a toggle that arms it for the next cell picked --------------------------------
  function setArmed(on) {
    armed = on && mayBomb(meta());
    room.classList.toggle("bomb-armed", armed);
    const toggle = document.getElementById("bomb-toggle");
    if (toggle) {
      toggle.setAttribute("aria-pressed", String(armed));
      const label = toggle.querySelector(".bomb-label");
      if (label) label.textContent = armed ? "Armed: pick a cell" : "Arm bomb";
    }
    if (!armed) preview(null);
  }
  function preview(cell) {
    document.querySelectorAll(".cell.in-blast").forEach((c) => c.classList.remove("in-blast"));
    if (!armed || !cell) return;
    const x = +cell.dataset.x;
    const y = +cell.dataset.y;
    for (let dy = -BLAST; dy <= BLAST; dy++) {
      for (let dx = -BLAST; dx <= BLAST; dx++) cellAt(x + dx, y + dy)?.classList.add("in-blast");
    }
  }

  // The turn timer counts down locally from the milliseconds left when the fragment was
  // rendered (board.js's Countdowns); the server passes the turn when it runs out, whatever this
  // page shows.
  function tickTimer() {
    const line = document.getElementById("turn-timer");
    if (!line || line.dataset.leftMs === undefined) return;
    const left = Math.ceil(window.Countdowns.left(line, Number(line.dataset.leftMs)) / 1000);
    const count = line.querySelector(".turn-timer-count");
    if (count && count.textContent !== String(left)) count.textContent = String(left);
    line.classList.toggle("low", left <= 5);
  }

  function update() {
    waiting = false;
    const m = meta();
    const b = input.board();
    if (b) b.dataset.turn = m.turn || "";
    room.classList.toggle("my-turn", myTurn(m));
    room.dataset.myMark = m.xSeat === mySeat && mySeat !== "" ? "X" : m.oSeat === mySeat && mySeat !== "" ? "O" : "";
    const bomb = document.getElementById("bomb");
    if (bomb) bomb.hidden = !mayBomb(m);
    setArmed(armed);
    window.personaliseStatus(mySeat); // live.js
    window.Countdowns.tick(); // the next game's, the turn's
    document.querySelectorAll(".roster-player, .contender").forEach((element) => {
      element.classList.toggle("me", mySeat !== "" && element.dataset.seat === mySeat);
    });
    input.restoreFocus();
  }

  // --- moves (board.js's BoardInput reads clicks and keys) --------------------------------------
  function canMove() { return mySeat !== "" && !waiting && meta().status === "playing"; }
  function move(action, cell) {
    if (armed) {
      waiting = live.send({ action: "bomb", x: +cell.dataset.x, y: +cell.dataset.y });
      setArmed(false);
      return;
    }
    if (cell.dataset.state !== "hidden") return;
    // Out of turn still goes out: the server's answer says why not.
    waiting = live.send({ action: "reveal", x: +cell.dataset.x, y: +cell.dataset.y });
  }
  const ping = (cell) => live.send({ action: "ping", x: +cell.dataset.x, y: +cell.dataset.y });
  const input = window.BoardInput(room, { canMove, move, ping: mySeat === "" ? null : ping });
  const { cellAt } = input;

  room.addEventListener("click", (event) => {
    if (event.target.closest("#bomb-toggle")) setArmed(!armed);
  });
  room.addEventListener("pointerover", (event) => preview(event.target.closest(".cell")));
  room.addEventListener("focusin", (event) => preview(event.target.closest(".cell")));

  // A move's message marks the cell it aimed at (data-fresh); the one before loses its mark.
  room.addEventListener("htmx:wsBeforeMessage", (event) => {
    if (event.defaultPrevented || !event.detail.message.includes('id="game-meta"')) return;
    document.querySelectorAll("#board .cell[data-fresh]").forEach((c) => c.removeAttribute("data-fresh"));
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && armed) {
      setArmed(false);
      return;
    }
    const inBoard = event.target.closest && event.target.closest("#board");
    if ((event.key === "b" || event.key === "B") && (inBoard || event.target === document.body)) {
      if (mayBomb(meta())) {
        event.preventDefault();
        setArmed(!armed);
        if (inBoard) preview(event.target.closest(".cell"));
      }
      return;
    }
  });

  // The board's size and its zoom, as co-op's (board.js): on a phone Flags' cells stay tap
  // targets and the board pans; Fit shows it whole where that leaves cells big enough.
  const zoom = window.BoardZoom(room, { reservedPx: 320, most: 34, tallest: 17 });
  room.addEventListener("htmx:wsAfterMessage", zoom.size);

  window.Countdowns.every(tickTimer);
  update();
  zoom.size();
})();
