// What every live room page needs beyond htmx: the socket (captured from htmx's wsOpen event),
// the connection line, version checks (ask for a snapshot after a gap) and the invite link's copy
// button. A game's own script (room.js, tictactoe.js) adds its input and per-viewer touches:
//   const live = LiveRoom(roomElement, afterEveryMessage);  live.send({action: ...});
window.LiveRoom = function (room, onUpdate) {
  "use strict";
  // htmx's websocket extension reconnects after these close codes, with jittered backoff.
  const RETRIED = [1006, 1011, 1012, 1013];
  const TRY_AGAIN_LATER = 1013; // the server is up but its channel layer (Redis) is not
  const LEFT = 4410; // this seat's player left the room (here or in another tab): watch instead
  const UNAVAILABLE_AFTER = 2; // reconnects in a row that never opened
  const MAX_RECONNECT_MS = 5000;
  // A move that cannot go out within this long is dropped, not played when the socket comes
  // back (htmx's own queue would send it whenever that is, on a board that has moved on).
  const HOLD_MS = 3000;
  const NOT_HELD = ["hover", "sync", "ping", "react"]; // worthless later (presence; a reconnect brings a snapshot)
  let socket = null;
  let open = false; // whether the socket is open right now (htmx queues whatever it gets else)
  let held = []; // [{ body, at }]: moves made while the socket was down, oldest first
  let holdTimer = null;
  let seen = readMeta();
  let opened = false; // whether the current connection attempt opened
  let failures = 0;
  let syncing = false; // a snapshot was asked for and has not arrived yet

  // Full jitter as htmx does it, but capped at 5 s instead of 64 s, so a player is back within
  // seconds of the server. (base.html's htmx-config must not set wsReconnectDelay: htmx merges
  // it after this script runs.)
  if (window.htmx) {
    window.htmx.config.wsReconnectDelay = (retries) =>
      Math.random() * Math.min(MAX_RECONNECT_MS, 1000 * 2 ** retries);
  }

  function readMeta() {
    const meta = document.getElementById("game-meta");
    return meta ? { game: +meta.dataset.game, version: +meta.dataset.version } : { game: 0, version: 0 };
  }

  // Returns whether the message went out or waits (briefly) for the socket to come back.
  function send(message) {
    if (open) {
      socket.send(JSON.stringify(message));
      return true;
    }
    if (NOT_HELD.includes(message.action)) return false;
    hold(JSON.stringify(message));
    return true;
  }

  // --- moves made while the socket is down ------------------------------------------------------
  // Held here rather than in htmx's queue, with the time they were made: the reconnect sends
  // those still fresh; the others are dropped, and the player told, as are moves made with the
  // socket down for longer than HOLD_MS. Forms with ws-send (new game, chat) go the same way.
  function hold(body) {
    held.push({ body, at: Date.now() });
    if (!holdTimer) holdTimer = setTimeout(dropStale, HOLD_MS);
  }
  function dropStale() {
    holdTimer = null;
    const fresh = held.filter((move) => Date.now() - move.at < HOLD_MS);
    const dropped = held.length - fresh.length;
    held = fresh;
    if (held.length) holdTimer = setTimeout(dropStale, HOLD_MS - (Date.now() - held[0].at));
    if (!dropped) return;
    notify("Not sent: connection lost — try again.");
    room.dispatchEvent(new CustomEvent("live:dropped", { detail: { count: dropped } }));
  }
  function sendHeld() {
    dropStale();
    for (const move of held) socket.send(move.body);
    held = [];
    clearTimeout(holdTimer);
    holdTimer = null;
  }
  room.addEventListener("htmx:wsConfigSend", (event) => {
    if (open) return;
    event.preventDefault();
    const detail = event.detail;
    hold(detail.messageBody ?? JSON.stringify({ ...detail.parameters, HEADERS: detail.headers }));
  });

  // A line about the player's own clicks that went nowhere (#click-lost, a polite live region
  // the page never swaps); it clears itself.
  let notifyTimer = null;
  function notify(text) {
    const notice = document.getElementById("click-lost");
    if (!notice) return;
    notice.textContent = text;
    clearTimeout(notifyTimer);
    notifyTimer = setTimeout(() => { notice.textContent = ""; }, 8000);
  }

  // While the socket is down nobody's presence is known: the roster says so until the
  // snapshot after the reconnect brings it again.
  function presenceUnknown() {
    document.querySelectorAll('[data-online="true"], [data-online="false"]').forEach((entry) => {
      entry.dataset.online = "unknown";
      entry.querySelectorAll(".presence, .visually-hidden").forEach((words) => {
        words.textContent = words.textContent.replace(/\b(online|away)\b/, "unknown");
      });
    });
  }

  function setConnection(state, text) {
    const line = document.getElementById("connection");
    if (!line) return;
    line.dataset.state = state;
    line.textContent = text;
  }

  // --- the connection line ----------------------------------------------------------------------
  // "Live" only once the snapshot the server sends on every (re)connect is on screen: before
  // that the board may be stale, and the snapshot replaces it anyway. When reconnecting keeps
  // failing, or the server says its channel layer is down (1013), say so: the page still shows
  // the last board, and it comes back by itself.
  room.addEventListener("htmx:wsConnecting", () => { opened = false; open = false; });
  room.addEventListener("htmx:wsOpen", (event) => {
    socket = event.detail.socketWrapper;
    opened = true;
    open = true;
    failures = 0;
    syncing = false; // every connection starts with a snapshot anyway
    setConnection("connecting", "Syncing…");
    sendHeld();
  });
  room.addEventListener("htmx:wsClose", (event) => {
    const code = event.detail.event.code;
    open = false;
    presenceUnknown();
    if (!opened) failures += 1;
    if (code === LEFT) {
      setConnection("closed", "You left the room — opening the watch page…");
      window.location.assign(window.location.pathname.replace(/\/r\/([^/]+)\/.*$/, "/r/$1/watch/"));
      return;
    }
    if (code === TRY_AGAIN_LATER) failures = Math.max(failures, UNAVAILABLE_AFTER);
    if (!RETRIED.includes(code)) {
      // The server said why it closed (the host removed this viewer, the room was deleted):
      // that reason is the one message, on the connection line, not beside a "Disconnected".
      const reason = document.getElementById("room-error");
      const why = reason?.textContent.trim();
      reason?.replaceChildren();
      room.dispatchEvent(new CustomEvent("live:closed"));
      setConnection("closed", why || "Disconnected — reload the page to rejoin");
    } else if (failures >= UNAVAILABLE_AFTER) {
      setConnection("unavailable", "Live updates unavailable — retrying…");
    } else {
      setConnection("reconnecting", "Reconnecting…");
    }
  });

  // --- versions -----------------------------------------------------------------------------
  // A move message names its game and version. Older ones are stale (a snapshot covered them);
  // a jump means the at-most-once channel layer dropped one (or two server processes' messages
  // crossed), so ask for a fresh snapshot, once: later messages are dropped until it arrives.
  room.addEventListener("htmx:wsBeforeMessage", (event) => {
    const match = /id="game-meta"[^>]*data-game="(\d+)" data-version="(\d+)"/.exec(event.detail.message);
    if (!match) return;
    const game = +match[1];
    const version = +match[2];
    const isSnapshot = event.detail.message.includes('id="board"');
    if (isSnapshot || game > seen.game) return;
    if (game < seen.game || version <= seen.version) {
      event.preventDefault();
    } else if (version > seen.version + 1) {
      event.preventDefault();
      if (!syncing) syncing = send({ action: "sync" });
    }
  });

  // The tab title names who plays (two-sided rooms): when a seat changes hands the heading's
  // names are swapped in (#room-title-names), and the title follows them.
  let titleNames = document.getElementById("room-title-names")?.dataset.titleNames;
  function retitle() {
    const names = document.getElementById("room-title-names")?.dataset.titleNames;
    if (!names || !titleNames || names === titleNames) return;
    document.title = document.title.replace(titleNames, names);
    titleNames = names;
  }

  room.addEventListener("htmx:wsAfterMessage", (event) => {
    retitle();
    if (event.detail.message.includes('id="board"')) {
      syncing = false;
      setConnection("live", "Live");
    }
    const meta = document.getElementById("game-meta");
    const board = document.getElementById("board");
    if (meta && board) {
      seen = readMeta();
      board.dataset.version = meta.dataset.version;
      board.dataset.status = meta.dataset.status;
      board.dataset.game = meta.dataset.game;
    }
    if (onUpdate) onUpdate(event);
  });

  // --- an error beside what caused it ----------------------------------------------------------
  // A refusal (#room-error, from the server) used to land at the foot of the play column: out of
  // sight below a laptop's window, or cut off under the emoji row (issue 35). It shows beside
  // the control, cell or chat box the player last used instead, inside the window: below it, or
  // above when there is no room below. The error is swapped whole by id, and htmx resets a
  // swapped element's class and style as it settles, so a box around it (never swapped) holds the
  // place. A tap elsewhere or Escape puts it away; the next error replaces it.
  let cause = null; // { element, id }: what the player last pressed, clicked or typed in
  const remember = (event) => {
    const element = event.target instanceof Element ? event.target : null;
    if (!element || element.closest(".error-spot")) return;
    cause = { element, id: element.id };
  };
  document.addEventListener("pointerdown", remember, true);
  document.addEventListener("keydown", remember, true);
  const error = () => document.getElementById("room-error");
  const spot = (() => {
    const first = error();
    if (!first) return null;
    const box = document.createElement("div");
    box.className = "error-spot";
    first.before(box);
    box.append(first);
    return box;
  })();
  function placeError() {
    const shown = error();
    if (!spot || !shown || !shown.textContent.trim()) {
      spot?.removeAttribute("data-beside");
      return;
    }
    let anchor = cause?.element;
    if (anchor && !anchor.isConnected && cause.id) anchor = document.getElementById(cause.id);
    const at = anchor?.isConnected ? anchor.getBoundingClientRect() : null;
    spot.dataset.beside = "true";
    const GAP = 6;
    const MARGIN = 8;
    const width = spot.offsetWidth;
    const height = spot.offsetHeight;
    let top = MARGIN;
    let left = (innerWidth - width) / 2;
    if (at && at.bottom > 0 && at.top < innerHeight) {
      top = at.bottom + GAP + height <= innerHeight - MARGIN ? at.bottom + GAP : at.top - GAP - height;
      left = at.left;
    }
    top = Math.max(MARGIN, Math.min(innerHeight - height - MARGIN, top));
    left = Math.max(MARGIN, Math.min(innerWidth - width - MARGIN, left));
    spot.style.setProperty("top", `${Math.round(top)}px`);
    spot.style.setProperty("left", `${Math.round(left)}px`);
  }
  function putErrorAway() {
    error()?.replaceChildren();
    placeError();
  }
  document.addEventListener("pointerdown", (event) => {
    if (spot?.dataset.beside && !spot.contains(event.target)) putErrorAway();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && spot?.dataset.beside) putErrorAway();
  });
  room.addEventListener("htmx:wsAfterMessage", placeError);
  room.addEventListener("live:closed", placeError);
  window.addEventListener("resize", placeError);
  window.addEventListener("scroll", placeError, { passive: true });

  // --- invite link ----------------------------------------------------------------------------
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const input = document.querySelector(button.dataset.copy);
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand("copy");
    }
    button.textContent = "Copied!";
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  });

  // The phone's share sheet, where the browser has one (hidden otherwise): the invite link.
  document.querySelectorAll("[data-share]").forEach((button) => {
    if (typeof navigator.share === "function") button.hidden = false;
  });
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-share]");
    if (!button || typeof navigator.share !== "function") return;
    const url = document.querySelector(button.dataset.share).value;
    try {
      await navigator.share({ title: document.title, text: "Join my game", url: url });
    } catch {
      // dismissed, or not allowed here: Copy still works
    }
  });

  return { send: send, notify: notify };
};

// A lean move's cell (README, "Contracts": id, data-state, data-count, no class) updates the
// page's cell in place, which keeps its class, position and focus: room.js, and the home page's
// "On now" (on_now.js). Returns the new state and count.
window.updateLeanCell = function (target, incoming) {
  "use strict";
  const { state, count } = incoming.dataset;
  target.dataset.state = state;
  if (count === undefined) target.removeAttribute("data-count");
  else target.dataset.count = count;
  for (const name of ["data-hint", "data-pending"]) target.removeAttribute(name);
  target.textContent = +count ? count : "";
  return { state, count };
};

// The status line carries a per-seat variant ({"0": "Your turn"}) for the seat it concerns:
// two-sided rooms (tictactoe.js, flags.js) show it to `mySeat` after every message.
window.personaliseStatus = function (mySeat) {
  "use strict";
  const status = document.getElementById("status");
  if (!status) return;
  status.querySelectorAll("[data-for-spectator]").forEach((element) => {
    element.hidden = mySeat !== ""; // "Join to take Bo's seat": for the watch link's spectators
  });
  if (mySeat === "") return;
  let texts = {};
  try { texts = JSON.parse(status.dataset.you || "{}"); } catch { texts = {}; }
  const words = status.querySelector(".status-words");
  const mine = texts[mySeat];
  status.querySelectorAll("[data-for-seat]").forEach((element) => {
    element.hidden = element.dataset.forSeat !== mySeat; // e.g. "Claim the win"
  });
  const meta = document.getElementById("game-meta");
  const sides = meta ? [meta.dataset.xSeat, meta.dataset.oSeat] : [mySeat];
  status.querySelectorAll("[data-for-visitor]").forEach((element) => {
    element.hidden = sides.includes(mySeat); // "Take Bo's seat": for who has no side
  });
  document.querySelectorAll("[data-pill]").forEach((element) => {
    element.hidden = (element.dataset.pill === "playing") !== sides.includes(mySeat);
  });
  status.classList.toggle("about-you", Boolean(mine));
  if (mine && words) words.textContent = mine;
};
