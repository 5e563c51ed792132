// The /play/ page: seeks and accepts over the lobby socket (JSON), the open seeks as the
// server rendered them, and, once matched, the seat's token posted to /play/seat/, which
// remembers the seat in this browser's session and opens the room.
(function () {
  "use strict";
  const lobby = document.getElementById("lobby");
  if (!lobby) return;
  const error = document.getElementById("lobby-error");
  const buttons = document.getElementById("seek-buttons");
  const waiting = document.getElementById("lobby-waiting");
  let socket = null;
  let mine = null; // this page's open seek
  let leaving = false;
  let retries = 0;

  function show(text) {
    error.textContent = text || "";
    error.hidden = !text;
  }

  function setWaiting(on, label, queue) {
    waiting.hidden = !on;
    buttons.hidden = on;
    if (label) document.getElementById("waiting-game").textContent = label;
    document.getElementById("waiting-queue").textContent =
      on && queue > 1 ? "(" + queue + " waiting for this game)" : "";
    markOwn();
  }

  function markOwn() {
    document.querySelectorAll("#seeks [data-accept]").forEach(function (button) {
      button.hidden = String(mine) === button.dataset.accept;
    });
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
      return true;
    }
    show("Not connected yet: try again in a moment.");
    return false;
  }

  function nickname() {
    const field = document.getElementById("lobby-nickname");
    return field && field.value.trim() ? field.value.trim() : null;
  }

  function go(event) {
    leaving = true;
    const form = document.getElementById("seat-form");
    form.elements.room.value = event.room;
    form.elements.player_token.value = event.player_token;
    form.submit();
  }

  function receive(event) {
    if (event.type === "seeks") {
      const list = document.getElementById("seeks");
      list.outerHTML = event.html;
      markOwn();
    } else if (event.type === "waiting") {
      mine = event.seek;
      show("");
      setWaiting(true, null, event.queue);
    } else if (event.type === "matched") {
      go(event);
    } else if (event.type === "cancelled" || event.type === "expired") {
      mine = null;
      setWaiting(false);
      if (event.error) show(event.error);
    } else if (event.type === "error") {
      show(event.error);
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(scheme + "//" + location.host + lobby.dataset.socket);
    socket.addEventListener("open", function () {
      retries = 0;
      lobby.dataset.state = "live"; // what a script (or a test) waits for before seeking
    });
    socket.addEventListener("message", function (message) {
      receive(JSON.parse(message.data));
    });
    socket.addEventListener("close", function (closed) {
      // The server ended any open seek with the socket: the page seeks again by a click.
      mine = null;
      lobby.dataset.state = "closed";
      setWaiting(false);
      if (leaving || closed.code === 4429 || closed.code === 1008) {
        if (!leaving) show(closed.reason || "Disconnected: reload the page.");
        return;
      }
      retries += 1;
      setTimeout(connect, Math.min(10000, 500 * 2 ** retries) * (0.5 + Math.random()));
    });
  }

  buttons.addEventListener("click", function (click) {
    const button = click.target.closest("button.seek");
    if (!button) return;
    const message = { action: "seek", game: button.dataset.game };
    if (button.dataset.mode) message.mode = button.dataset.mode;
    if (button.dataset.preset) message.preset = button.dataset.preset;
    // A kind whose seeker picks how many play has its choice beside its buttons (play.html).
    const chooser = (button.dataset.mode || button.dataset.game) + "-players";
    const players = document.getElementById(chooser);
    if (players) message.players = Number(players.value);
    const rated = document.getElementById("seek-rated");
    if (rated && rated.checked) message.rated = true;
    const name = nickname();
    if (name) message.name = name;
    if (send(message)) document.getElementById("waiting-game").textContent = button.textContent;
  });

  document.getElementById("cancel-seek").addEventListener("click", function () {
    send({ action: "cancel" });
  });

  lobby.addEventListener("click", function (click) {
    const button = click.target.closest("button[data-accept]");
    if (!button) return;
    const message = { action: "accept", seek: Number(button.dataset.accept) };
    const name = nickname();
    if (name) message.name = name;
    send(message);
  });

  connect();
})();
