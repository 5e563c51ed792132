// Alerts (DESIGN.md "Alerts"): when it becomes your turn (Flags, tic-tac-toe), when a race counts
// down or starts, and when someone names you in chat, the tab's title gets a prefix — "(Your turn) ",
// "(Race!) ", "(N) " for N unread lines that name you — a short sound may play, and a browser
// notification shows while the tab is hidden. All of it is off until switched on in #alerts, and
// the choice is kept in localStorage. Nothing blinks or moves: the prefix is plain text, so
// reduced motion needs nothing taken away; the sound has its own switch (the mute).
// The turn and the race are read from the markup the socket swaps in (#game-meta's data-turn-seat,
// #race's data-phase), the mentions from chat.js's "chat:mentions" event: no message of its own.
(function () {
  "use strict";
  const panel = document.getElementById("alerts");
  const room = document.querySelector(".room[ws-connect]");
  if (!panel || !room) return;
  const KEY = "alerts";
  const mySeat = room.dataset.seat;
  const playing = mySeat !== "" && !document.body.classList.contains("watching");
  const switches = {
    on: panel.querySelector('[data-alert="on"]'),
    sound: panel.querySelector('[data-alert="sound"]'),
    notify: panel.querySelector('[data-alert="notify"]'),
  };
  const hint = panel.querySelector(".alerts-hint");
  const canNotify = "Notification" in window;
  let choice = { on: false, sound: false, notify: false };
  try { choice = { ...choice, ...JSON.parse(localStorage.getItem(KEY) || "{}") }; } catch (e) { /* private mode */ }

  // --- what the title says --------------------------------------------------------------------
  const state = { mentions: 0, turn: false, race: false };
  let prefix = ""; // the prefix this script put on document.title (live.js may rename the rest)
  function retitle() {
    let next = "";
    if (choice.on) {
      if (state.mentions) next += `(${state.mentions}) `;
      if (state.turn) next += "(Your turn) ";
      if (state.race) next += "(Race!) ";
    }
    if (next === prefix) return;
    const rest = document.title.startsWith(prefix) ? document.title.slice(prefix.length) : document.title;
    document.title = next + rest;
    prefix = next;
  }

  // --- the sound: a few notes made here with the Web Audio API (no file to license) --------------
  const TUNES = { turn: [660, 880], race: [523, 523, 784], mention: [988] };
  const NOTE_S = 0.11;
  let audio = null;
  function audioContext() {
    if (!audio && window.AudioContext) audio = new AudioContext();
    return audio;
  }
  function play(kind) {
    const context = audioContext();
    if (!context) return;
    if (context.state !== "running") {
      context.resume().then(() => { if (context.state === "running") play(kind); }, () => {});
      return; // a browser refuses sound until the page was touched; counted once it plays
    }
    TUNES[kind].forEach((pitch, index) => {
      const at = context.currentTime + index * NOTE_S;
      const tone = context.createOscillator();
      const volume = context.createGain();
      tone.type = "sine";
      tone.frequency.value = pitch;
      volume.gain.setValueAtTime(0.0001, at);
      volume.gain.exponentialRampToValueAtTime(0.12, at + 0.01);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + NOTE_S - 0.01);
      tone.connect(volume).connect(context.destination);
      tone.start(at);
      tone.stop(at + NOTE_S);
    });
    panel.dataset.sounded = String(+(panel.dataset.sounded || 0) + 1); // for tests and curious people
  }
  // A page opened with the sound on cannot play it until touched: the first touch wakes it.
  for (const type of ["pointerdown", "keydown"]) {
    document.addEventListener(type, () => { if (choice.on && choice.sound) audioContext()?.resume(); }, { once: true });
  }

  // --- the moment itself ------------------------------------------------------------------------
  function alert(kind, title, body) {
    if (!choice.on) return;
    if (choice.sound) play(kind);
    if (!choice.notify || !document.hidden || !canNotify || Notification.permission !== "granted") return;
    try {
      const note = new Notification(title, { body: body, tag: `minesweeper-live-${kind}`, icon: panel.dataset.icon });
      note.addEventListener("click", () => { window.focus(); note.close(); });
      panel.dataset.notified = String(+(panel.dataset.notified || 0) + 1);
    } catch (e) { /* Android's Chrome allows them from a service worker only */ }
  }

  function roomName() { return prefix ? document.title.slice(prefix.length) : document.title; }

  // After every message: whose turn it is (two-sided rooms) and where a race stands.
  let first = true; // the snapshot a page opens with sets the state; it does not alert
  function read() {
    const meta = document.getElementById("game-meta");
    const turn = Boolean(playing && meta && meta.dataset.status === "playing"
      && meta.dataset.turnSeat !== undefined && meta.dataset.turnSeat === mySeat);
    if (turn && !state.turn && !first) alert("turn", "Your turn", roomName());
    state.turn = turn;

    // A race: from its countdown on ("Go" included) for whoever races in it (#race's data-running
    // says so once it runs). After Go the prefix stays only while the tab is hidden.
    const bar = document.getElementById("race");
    const phase = bar?.dataset.phase;
    const racing = playing && (phase === "countdown" || (phase === "racing" && bar.dataset.running === "true"));
    if (racing && !wasRacing && !first) {
      alert("race", phase === "countdown" ? "The race is about to start" : "The race has started", roomName());
    }
    if (!racing) state.race = false;
    else if (phase === "countdown") state.race = true;
    else state.race = document.hidden && (state.race || !wasRacing);
    wasRacing = racing;
    first = false;
    retitle();
  }
  let wasRacing = false;
  document.body.addEventListener("htmx:wsAfterMessage", read);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && state.race && document.getElementById("race")?.dataset.phase !== "countdown") {
      state.race = false;
      retitle();
    }
  });

  document.addEventListener("chat:mentions", (event) => {
    const { count, line } = event.detail;
    if (line && count > state.mentions) alert("mention", `${line.author} mentioned you`, line.text);
    state.mentions = count;
    retitle();
  });

  // --- the switches -----------------------------------------------------------------------------
  function show() {
    switches.on.setAttribute("aria-pressed", String(choice.on));
    switches.sound.setAttribute("aria-pressed", String(choice.on && choice.sound));
    switches.sound.disabled = !choice.on;
    const blocked = canNotify && Notification.permission === "denied";
    switches.notify.setAttribute("aria-pressed", String(choice.on && choice.notify && !blocked));
    switches.notify.disabled = !choice.on || !canNotify || blocked;
    let words = "Off: switch on to see “(Your turn)”, “(Race!)” and mentions of your name in the tab's title.";
    if (choice.on) words = "Your turn, a race starting and your name in chat show in the tab's title.";
    if (choice.on && !canNotify) words += " This browser has no notifications.";
    else if (choice.on && blocked) words += " Notifications are blocked in this browser's settings.";
    hint.textContent = words;
    panel.dataset.on = String(choice.on);
  }
  function keep() {
    try { localStorage.setItem(KEY, JSON.stringify(choice)); } catch (e) { /* private mode */ }
    show();
    retitle();
  }
  switches.on.addEventListener("click", () => { choice.on = !choice.on; keep(); });
  switches.sound.addEventListener("click", () => {
    choice.sound = !choice.sound;
    keep();
    if (choice.sound) play("turn"); // the click lets the page make sound; this is what it sounds like
  });
  switches.notify.addEventListener("click", async () => {
    if (choice.notify) {
      choice.notify = false;
    } else {
      const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
      choice.notify = answer === "granted";
    }
    keep();
  });
  show();
  retitle();
})();
