// The replay page (games/web/replays.py): scrub, step and play and share any position of a game.
//
// The server sends the timeline in chunks of moves: the page carries the one holding the move it
// opened at, and the others are fetched from the chunk address when the viewer goes there (a long
// game sent whole was a 1.3 MB page). A chunk is the board before its first move and, per move,
// the cells it changed (the public board only; a finished game's mines come apart, for the "show
// all mines" toggle) and the moves' list entries. Each chunk is applied once, in order, so every
// position in it is a lookup; nothing is computed here that the server did not say. No inline
// script and no eval: the data is a JSON block.
(() => {
  "use strict";
  const source = document.getElementById("replay-data");
  const root = document.querySelector(".replay");
  if (!source || !root) return;
  const data = JSON.parse(source.textContent);
  const last = data.moves;
  const CHUNK = data.chunk;
  const OPEN = new Set("_12345678"); // a revealed cell, in the board's characters
  const MAX_PAUSE_MS = 10000; // a long think is shown as ten seconds at most (times the speed)
  const URL_EVERY_MS = 400; // 2.5 a second: 75 in Safari's 30 s, where 100 throw

  // Chunks by their first move: {first, steps: [at_ms, seat, target, cells, chars], positions,
  // entries}; positions[i] is the board after first + i moves. Loading ones are promises.
  const chunks = new Map();
  const loading = new Map();
  function keep(chunk) {
    const board = chunk.board.split("");
    const positions = [chunk.board];
    for (const [, , , cells, chars] of chunk.steps) {
      cells.forEach((cell, i) => { board[cell] = chars[i]; });
      positions.push(board.join(""));
    }
    chunks.set(chunk.first, { first: chunk.first, steps: chunk.steps, positions, entries: chunk.entries });
  }
  const chunkOf = (p) => (p === 0 ? 0 : Math.floor((p - 1) / CHUNK) * CHUNK);
  function load(first) {
    if (chunks.has(first) || first < 0 || first >= Math.max(1, last)) return Promise.resolve();
    if (!loading.has(first)) {
      const done = fetch(`${data.chunk_url}${first}/`, { headers: { Accept: "application/json" } })
        .then((response) => {
          if (!response.ok) throw new Error(`chunk ${first}: HTTP ${response.status}`);
          return response.json();
        })
        .then((chunk) => { chunk.steps = chunk.steps.slice(0, last - first); keep(chunk); })
        .finally(() => loading.delete(first));
      loading.set(first, done);
    }
    return loading.get(first);
  }
  keep(data);
  const stepAt = (p) => { const c = chunks.get(chunkOf(p)); return c && p > 0 ? c.steps[p - 1 - c.first] : null; };
  const positionAt = (p) => { const c = chunks.get(chunkOf(p)); return c ? c.positions[p - c.first] : null; };
  const mines = new Set(data.mines);
  const managed = new Set();
  for (const look of Object.values(data.legend)) {
    for (const name of Object.keys(look)) if (name !== "text") managed.add(name);
  }

  const el = (id) => document.getElementById(id);
  const boardEl = el("board");
  const cellEls = data.ids.map((id) => document.getElementById(id));
  const scrubber = el("replay-scrubber");
  const playButton = el("replay-play");
  const speed = el("replay-speed");
  const where = el("replay-position");
  const share = el("replay-share");
  const showMines = el("replay-show-mines");
  const timeline = el("replay-timeline");
  let listed = chunkOf(data.k); // the chunk whose moves the list shows (with Start, always)
  if (timeline) { // the entries the page came with, for coming back to them
    chunks.get(listed).entries = Array.from(timeline.children).slice(1).map((item) => item.outerHTML).join("");
  }

  root.style.setProperty("--cols", String(data.width));
  root.style.setProperty("--rows", String(data.height));
  // Several boards side by side (a race): how many fit across, and each racer's progress.
  const parts = data.parts || [];
  const size = data.width * data.height;
  const progressEls = parts.map((_, i) => root.querySelector(`output[data-part="${i}"]`));
  const partBoards = parts.map((_, i) => root.querySelector(`.replay-part[data-part="${i}"] .board`));
  if (parts.length) {
    root.style.setProperty("--across", String(data.across));
    root.style.setProperty("--across-phone", String(data.across_phone));
  }

  let k = data.k;
  let painted = positionAt(k).split("");
  let ghosts = false; // whether mines under covered cells are drawn
  let timer = null;
  let outlined = null;

  function look(index, char) {
    if (ghosts && char === "#" && mines.has(index)) return { char: "*", ghost: true };
    return { char, ghost: false };
  }

  function paintCell(index, char, ghost) {
    const cell = cellEls[index];
    const attrs = data.legend[char];
    for (const name of managed) {
      if (name in attrs) cell.setAttribute(name, attrs[name]);
      else cell.removeAttribute(name);
    }
    cell.textContent = attrs.text || "";
    if (ghost) cell.setAttribute("data-ghost", "true");
    else cell.removeAttribute("data-ghost");
  }

  function clock(ms) {
    if (ms === null || ms === undefined) return "";
    const hundredths = Math.floor(ms / 10);
    const minutes = Math.floor(hundredths / 6000);
    const rest = hundredths % 6000;
    const seconds = String(Math.floor(rest / 100)).padStart(2, "0");
    return `${minutes}:${seconds}.${String(rest % 100).padStart(2, "0")}`;
  }

  // The current entry in view inside the list, without scrolling the page (scrollIntoView would).
  function keepInList(entry) {
    const item = entry.parentElement;
    if (item.offsetTop < timeline.scrollTop) timeline.scrollTop = item.offsetTop;
    const bottom = item.offsetTop + item.offsetHeight;
    if (bottom > timeline.scrollTop + timeline.clientHeight) timeline.scrollTop = bottom - timeline.clientHeight;
  }

  // The list shows the moves of the chunk holding `first`, written out by the server.
  function list(first) {
    const chunk = chunks.get(first);
    if (!timeline || listed === first || !chunk || chunk.entries === undefined) return;
    const start = timeline.firstElementChild;
    while (start.nextSibling) start.nextSibling.remove();
    start.insertAdjacentHTML("afterend", chunk.entries);
    listed = first;
    const note = el("replay-chunk-note");
    if (note) note.textContent = `Moves ${first + 1}–${Math.min(first + CHUNK, last)} of ${last}; the list follows the board.`;
  }

  // Position `next`, at once when its chunk is here; otherwise the controls move now and the
  // board follows when the chunk comes (unless the viewer has gone elsewhere meanwhile).
  function show(next, { scroll = true } = {}) {
    k = Math.max(0, Math.min(last, next));
    const target = positionAt(k);
    scrubber.value = String(k);
    if (target === null) {
      const wanted = k;
      where.textContent = `Move ${k} of ${last} · loading`;
      load(chunkOf(k)).then(() => { if (k === wanted) show(k, { scroll }); }, () => {
        if (k === wanted) where.textContent = `Move ${k} of ${last} · could not load it, try again`;
      });
      return;
    }
    list(chunkOf(k));
    // The next chunk before playback or stepping reaches it.
    if (k - chunkOf(k) > CHUNK - 50) load(chunkOf(k) + CHUNK).catch(() => {});
    target.split("").forEach((raw, index) => {
      const { char, ghost } = look(index, raw);
      const key = ghost ? "ghost" : char;
      if (painted[index] !== key) {
        paintCell(index, char, ghost);
        painted[index] = key;
      }
    });
    parts.forEach((offset, i) => {
      let opened = 0;
      for (let c = offset; c < offset + size; c += 1) if (OPEN.has(target[c])) opened += 1;
      const done = data.safe > 0 ? Math.floor((100 * opened) / data.safe) : 0;
      if (progressEls[i]) progressEls[i].textContent = `${done}%`;
      if (partBoards[i]) partBoards[i].dataset.progress = String(done);
    });
    if (outlined) outlined.removeAttribute("data-outline");
    outlined = null;
    const step = stepAt(k);
    if (step && step[2] !== null) {
      outlined = cellEls[step[2]];
      outlined.setAttribute("data-outline", data.colours[String(step[1])] || "0");
    }
    boardEl.dataset.k = String(k);
    boardEl.dataset.status = k === last ? data.status : "playing";
    boardEl.setAttribute("aria-label", `The board after move ${k} of ${last}`);
    const at = step ? clock(step[0]) : "0:00.00";
    where.textContent = `Move ${k} of ${last}${at ? ` · ${at}` : ""}`;
    for (const entry of timeline ? timeline.querySelectorAll("button[data-k]") : []) {
      if (Number(entry.dataset.k) === k) {
        entry.setAttribute("aria-current", "step");
        if (scroll) keepInList(entry);
      } else {
        entry.removeAttribute("aria-current");
      }
    }
    if (share) share.value = here().href;
    followInAddress();
  }

  function here() {
    const url = new URL(window.location.href);
    url.searchParams.set("move", String(k));
    return url;
  }
  // The address bar follows the position, but at most once per URL_EVERY_MS, the last position
  // always written: Safari throws past 100 history.replaceState calls in 30 s, and playing at 8x
  // steps far faster (the throw stopped playback with the button still showing "playing").
  let urlWritten = -Infinity;
  let urlTimer = null;
  function writeAddress() {
    urlTimer = null;
    urlWritten = performance.now();
    try {
      window.history.replaceState(null, "", here());
    } catch {
      // Refused all the same: the share box still has the link, and playback goes on.
    }
  }
  function followInAddress() {
    if (urlTimer !== null) return;
    const wait = URL_EVERY_MS - (performance.now() - urlWritten);
    if (wait <= 0) writeAddress();
    else urlTimer = window.setTimeout(writeAddress, wait);
  }

  function pause() {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    playButton.dataset.playing = "false";
    playButton.setAttribute("aria-label", "Play");
  }

  function tick() {
    if (k >= last) { pause(); return; }
    if (positionAt(k + 1) === null) { // the next chunk is late: wait for it, still playing
      load(chunkOf(k + 1)).then(() => { if (timer !== null) tick(); }, pause);
      return;
    }
    show(k + 1);
    if (k >= last) { pause(); return; }
    const now = stepAt(k)[0];
    const next = stepAt(k + 1);
    const then = next ? next[0] : null;
    const gap = now === null || then === null ? 500 : Math.min(then - now, MAX_PAUSE_MS);
    timer = window.setTimeout(tick, Math.max(0, gap) / Number(speed.value || 1));
  }

  function play() {
    if (k >= last) show(0);
    playButton.dataset.playing = "true";
    playButton.setAttribute("aria-label", "Pause");
    timer = window.setTimeout(tick, 0);
  }

  const step = (by) => { pause(); show(k + by); };
  playButton.addEventListener("click", () => (timer === null ? play() : pause()));
  el("replay-back").addEventListener("click", () => step(-1));
  el("replay-forward").addEventListener("click", () => step(1));
  el("replay-first").addEventListener("click", () => { pause(); show(0); });
  el("replay-last").addEventListener("click", () => { pause(); show(last); });
  scrubber.addEventListener("input", () => { pause(); show(Number(scrubber.value)); });
  if (timeline) {
    timeline.addEventListener("click", (event) => {
      const entry = event.target instanceof Element ? event.target.closest("button[data-k]") : null;
      if (entry) { pause(); show(Number(entry.dataset.k), { scroll: false }); }
    });
  }
  const mine = el("replay-mine");
  if (mine) {
    mine.addEventListener("click", () => {
      pause();
      show(last);
      cellEls[data.exploded].scrollIntoView({ block: "nearest", inline: "nearest" }); // big boards scroll
    });
  }
  if (showMines) {
    showMines.addEventListener("change", () => {
      ghosts = showMines.checked;
      boardEl.dataset.showMines = String(ghosts);
      show(k, { scroll: false });
    });
  }
  const copy = el("replay-copy");
  if (copy && share) {
    copy.addEventListener("click", async () => {
      share.select();
      try { await navigator.clipboard.writeText(share.value); copy.textContent = "Copied"; } catch { copy.textContent = "Select and copy"; }
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target instanceof HTMLElement ? event.target.tagName : "";
    if (tag === "SELECT" || (tag === "INPUT" && event.target !== scrubber)) return;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault(); // the scrubber would move too: one step per key
      step(event.key === "ArrowLeft" ? -1 : 1);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      pause();
      show(event.key === "Home" ? 0 : last);
    } else if (event.key === " " && tag !== "BUTTON") {
      event.preventDefault();
      if (timer === null) play(); else pause();
    }
  });
  root.dataset.ready = "true";
  show(k, { scroll: true });
})();
