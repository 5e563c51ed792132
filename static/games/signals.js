// Pings and reactions (games/rooms/signals.py) on every room page: each arrives as an element in
// #signals (class="ping" or "reaction", data-seat...), is shown for a few seconds (a ping pulses
// on its cell in the pinger's colour, a reaction sits beside the sender's name in the roster and
// on their pointer, in place of its initial) and is said once in #signal-news. Moves swap cells
// and rosters swap names, so what is showing is drawn again after every message. The server
// budgets what comes in; SHOWN bounds what a page keeps however fast it comes.
(function () {
  "use strict";
  const SHOW_MS = 3000;
  const SHOWN = 24; // pings and reactions on show at once, the oldest dropped first
  const feed = document.getElementById("signals");
  const news = document.getElementById("signal-news");
  const room = document.querySelector(".room");
  if (!feed || !room) return;

  const named = (seat) => document.querySelectorAll(
    `.roster-player[data-seat="${seat}"] .name, .lobby-racer[data-seat="${seat}"], .contender[data-seat="${seat}"] .contender-name`,
  );

  function draw() {
    document.querySelectorAll(".cell[data-ping]").forEach((cell) => {
      cell.removeAttribute("data-ping");
    });
    document.querySelectorAll(".reaction-badge").forEach((badge) => badge.remove());
    document.querySelectorAll(".cell[data-reaction]").forEach((cell) => cell.removeAttribute("data-reaction"));
    for (const signal of feed.children) {
      const seat = signal.dataset.seat;
      if (signal.classList.contains("ping")) {
        const cell = document.getElementById(`cell-${signal.dataset.x}-${signal.dataset.y}`);
        if (cell) cell.dataset.ping = signal.dataset.colour;
      } else if (signal.classList.contains("reaction")) {
        named(seat).forEach((name) => {
          const badge = document.createElement("span");
          badge.className = "reaction-badge";
          badge.setAttribute("aria-hidden", "true");
          badge.textContent = signal.dataset.symbol;
          name.after(badge);
        });
        // and on the sender's pointer (room.js names it in the cell's title), instead of the initial
        document.querySelectorAll(".cell[data-cursor]").forEach((cell) => {
          if (cell.title === signal.dataset.name) cell.dataset.reaction = signal.dataset.symbol;
        });
      }
    }
  }

  function arrived(signal) {
    if (!signal.classList?.contains("ping") && !signal.classList?.contains("reaction")) return;
    while (feed.children.length > SHOWN) feed.firstElementChild.remove();
    if (news) news.textContent = signal.textContent;
    setTimeout(() => { signal.remove(); draw(); }, SHOW_MS);
  }

  new MutationObserver((changes) => {
    for (const change of changes) change.addedNodes.forEach(arrived);
    draw();
  }).observe(feed, { childList: true });
  // After the page's own script has drawn the message (and the pointers) anew.
  room.addEventListener("htmx:wsAfterMessage", () => requestAnimationFrame(draw));
})();
