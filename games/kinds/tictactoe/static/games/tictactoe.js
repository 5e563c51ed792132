// Tic-tac-toe in the browser: clicks and arrow keys become {"action": "mark", "cell": N} on the
// room socket, and the per-viewer touches the shared fragments leave out ("Your turn", "You win!",
// which squares you may click, "(you)"). The server decides everything else.
(function () {
  "use strict";

  const room = document.querySelector(".room.ttt[ws-connect]");
  if (!room || !window.LiveRoom) return;
  const mySeat = room.dataset.seat;
  const live = window.LiveRoom(room, update);
  let pending = false;
  let focused = null;

  function meta() {
    const element = document.getElementById("game-meta");
    return element ? element.dataset : {};
  }
  function myTurn(m) {
    return mySeat !== "" && m.status === "playing" && m.turnSeat === mySeat;
  }
  function myMark(m) {
    if (mySeat === "") return "";
    if (m.xSeat === mySeat) return "X";
    if (m.oSeat === mySeat) return "O";
    return "";
  }

  function update() {
    const m = meta();
    pending = false;
    window.Countdowns.tick(); // "Next game in 5 s" after a game the computers played (board.js)
    room.classList.toggle("my-turn", myTurn(m));
    room.dataset.myMark = myMark(m);
    window.personaliseStatus(mySeat); // live.js
    document.querySelectorAll(".roster-player, .contender").forEach((element) => {
      element.classList.toggle("me", mySeat !== "" && element.dataset.seat === mySeat);
    });
    if (focused && (document.activeElement === document.body || !document.activeElement)) {
      const square = document.getElementById(focused);
      if (square) square.focus();
    }
  }

  // Squares are replaced by each message; keep keyboard focus where it was.
  room.addEventListener("htmx:wsBeforeMessage", () => {
    const active = document.activeElement;
    focused = active && active.classList && active.classList.contains("square") ? active.id : null;
  });

  room.addEventListener("click", (event) => {
    const square = event.target.closest(".square");
    if (!square || mySeat === "" || pending) return;
    if (square.dataset.mark !== "" || meta().status !== "playing") return;
    // Out of turn (or without a seat) still goes out: the server's answer says why not.
    if (live.send({ action: "mark", cell: +square.dataset.cell })) pending = myTurn(meta());
  });

  room.addEventListener("keydown", (event) => {
    const square = event.target.closest(".square");
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!square || !steps[event.key]) return;
    event.preventDefault();
    const cell = +square.dataset.cell;
    const x = Math.max(0, Math.min(2, (cell % 3) + steps[event.key][0]));
    const y = Math.max(0, Math.min(2, Math.floor(cell / 3) + steps[event.key][1]));
    document.getElementById(`square-${y * 3 + x}`).focus();
  });

  update();
})();
