// A race room beyond htmx, live.js and board.js (which reads input on the racer's own board):
// the 3-2-1 countdown, the race clock, the penalty countdown on a frozen board,
// progress copied onto each board-SEAT (a progress card while one races), boards sized to fit
// (CSP: sizes go through the CSSOM) and "Follow" for spectators. The server owns the race: this
// file sends intentions only.
// No pointer positions are sent: in a race they would tell the others where you look.
(function () {
  "use strict";
  const room = document.querySelector(".room.race[ws-connect]");
  if (!room || !window.LiveRoom) return;
  const mySeat = room.dataset.seat;
  const live = window.LiveRoom(room, afterMessage);
  let followed = null; // the seat a spectator follows large
  const age = window.Countdowns.age; // board.js: per timed element (the bar, #freeze, a status)

  function board() { return document.getElementById("board"); }
  function myStatus() { return document.getElementById(`status-${mySeat}`); }

  function canMove() {
    const b = board();
    if (!b || b.dataset.status !== "playing" || b.dataset.frozen === "true") return false;
    const status = myStatus();
    return !status || status.dataset.standing === "racing";
  }
  const input = window.BoardInput(room, {
    canMove,
    move: (action, cell) => live.send({ action: action, x: +cell.dataset.x, y: +cell.dataset.y }),
    flagging: true,
    // A racer's ping shows on their own screens only (the server sends it nowhere else).
    ping: mySeat === "" || document.body.classList.contains("watching") ? null
      : (cell) => live.send({ action: "ping", x: +cell.dataset.x, y: +cell.dataset.y }),
  });

  room.addEventListener("click", (event) => {
    const follow = event.target.closest("[data-follow]");
    if (follow) setFollowed(followed === follow.dataset.follow ? null : follow.dataset.follow);
  });

  // --- after every message ------------------------------------------------------------------
  function afterMessage() {
    document.querySelectorAll(".racer-status").forEach((status) => {
      const mini = document.getElementById(`board-${status.dataset.seat}`);
      if (mini) mini.dataset.progress = status.dataset.progress;
      if (mini && mini.dataset.view === "progress") {
        mini.dataset.standing = status.dataset.standing;
        mini.dataset.minesHit = status.dataset.minesHit;
      }
      const card = document.getElementById(`rival-${status.dataset.seat}`);
      if (card) card.dataset.standing = status.dataset.standing;
      const place = status.querySelector(".racer-place"); // swapped alone when others moved
      if (place) status.dataset.place = place.textContent.replace("#", "");
    });
    document.querySelectorAll(".rival").forEach((card) => {
      card.classList.toggle("me", card.dataset.seat === mySeat);
    });
    const b = board();
    const freeze = document.getElementById("freeze");
    if (b) {
      if (freeze && +freeze.dataset.ms > 0) b.dataset.frozen = "true";
      else delete b.dataset.frozen;
      const status = myStatus();
      if (status && status.dataset.standing !== "racing" && b.dataset.status === "playing") {
        b.dataset.status = status.dataset.standing === "finished" ? "won" : "lost";
      }
    }
    setFollowed(followed);
    sizeBoards();
    input.restoreFocus(); // one cell takes Tab; focus stays where it was, and so does the view
    window.Countdowns.tick();
  }

  function setFollowed(seat) {
    followed = seat;
    document.querySelectorAll(".rival").forEach((card) => {
      const on = card.dataset.seat === seat;
      card.classList.toggle("followed", on);
      const button = card.querySelector("[data-follow]");
      if (button) {
        button.setAttribute("aria-pressed", String(on));
        button.textContent = on ? "Unfollow" : "Follow";
      }
    });
    const rivals = document.getElementById("rivals");
    if (rivals) rivals.classList.toggle("following", seat !== null && Boolean(document.getElementById(`rival-${seat}`)));
    sizeBoards();
  }

  // --- clocks: countdown, race time, penalty ---------------------------------------------------
  function tick() {
    const countdown = document.getElementById("countdown");
    if (countdown) {
      const left = +countdown.dataset.ms - age(countdown);
      const text = left > 0 ? String(Math.ceil(left / 1000)) : "Go!";
      if (countdown.textContent !== text) countdown.textContent = text;
    }
    const bar = document.getElementById("race");
    const clock = document.getElementById("race-clock");
    if (bar && clock) {
      const running = bar.dataset.running === "true";
      const ms = +bar.dataset.elapsedMs + (running ? age(bar) : 0);
      clock.textContent = (Math.max(0, ms) / 1000).toFixed(1);
    }
    const limit = document.getElementById("race-limit");
    if (limit) {
      const left = Math.max(0, +limit.dataset.ms - age(limit));
      const seconds = Math.ceil(left / 1000);
      limit.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} left`;
      limit.dataset.low = String(left < 30000);
    }
    const freeze = document.getElementById("freeze");
    if (freeze && +freeze.dataset.ms > 0) {
      const left = +freeze.dataset.ms - age(freeze);
      const b = board();
      if (left > 0) {
        freeze.textContent = `Mine! Frozen for ${(left / 1000).toFixed(1)} s`;
        if (b) b.dataset.frozen = "true";
      } else {
        freeze.textContent = "";
        if (b) delete b.dataset.frozen; // the server's thaw follows at once
      }
    }
    document.querySelectorAll('.racer-status[data-frozen-ms]:not([data-frozen-ms="0"])').forEach((status) => {
      const left = +status.dataset.frozenMs - age(status);
      const state = status.querySelector(".racer-state");
      if (state && left > 0) state.dataset.countdown = `${Math.ceil(left / 1000)} s`;
      else if (state) delete state.dataset.countdown;
    });
  }
  window.Countdowns.every(tick);

  // --- sizes ------------------------------------------------------------------------------------
  // On the room element (board.js's setBoardSize). Every board of a race has the same size, so
  // one set of variables serves them all.
  const MAX_CELL = 36;
  function sizeBoards() {
    const b = board();
    if (!b || !b.dataset.width) return;
    const cols = +b.dataset.width;
    const rows = +b.dataset.height;
    const area = b.closest(".own-area") || room;
    const { base } = window.fitCell({
      cols, rows, width: area.clientWidth - 28, height: window.innerHeight - 260, most: MAX_CELL,
    });
    window.setBoardSize(room, cols, rows, Math.floor(base));
    const card = document.querySelector(".rival:not(.followed)");
    const full = document.getElementById("rivals")?.dataset.view === "full";
    const inner = (card ? card.clientWidth : 200) - 24;
    const mini = Math.max(3, Math.min(full ? 22 : 12, Math.floor(inner / cols)));
    const rivals = document.getElementById("rivals");
    const big = Math.max(mini, Math.min(40, Math.floor(((rivals ? rivals.clientWidth : 600) - 24) / cols)));
    room.style.setProperty("--mcols", cols);
    room.style.setProperty("--mcell", `${mini}px`);
    room.style.setProperty("--mcell-big", `${big}px`);
    room.dataset.smallMini = mini < 11 ? "true" : "false";
  }
  window.addEventListener("resize", sizeBoards);
  sizeBoards();
})();
