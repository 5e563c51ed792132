// Room-size latency probe for Minesweeper Live, in Node, the same way a peer (Michaell14's
// Minesweeper-Co-op, socket.io) was measured: player A + N-1 receivers, ALL PLAYERS (each joined through
// the nickname form with a session of its own), in one co-op room, 32x16 with 20 mines.
// Latency per move = the sender's send -> the LAST receiver's websocket frame that contains the moved
// cell (id="cell-X-Y"). All clients live in this one Node process (same monotonic clock). Websockets:
// the `ws` package, no compression, Cookie + Origin headers. Prints one JSON line.
//
// Ours (bench/room_probe.js, copied from ../shared/peer-bench and changed in three places only, marked
// "bench:"): BASES spreads the clients over several server processes; clients past SEATS (the room's
// 50 seats, one the creator's) watch instead of joining; "probe: measuring" / "probe: measured" on stderr let the bench
// read the server's CPU over the measured moves alone. `python -m bench.probe` runs it.
// Setup: npm install ws@8 in any folder, then
//   WS_MODULE=<that folder>/node_modules/ws BASE=http://127.0.0.1:8000 N=20 MOVERS=3 node room_probe.js
// Env: BASE, N (2), MOVES (150 per kind), WARM (10 per kind), TAG, PICK (solver|random),
// WIDTH/HEIGHT/MINES (32/16/20), MOVERS (1: A sends every move; K>1: the first K players take turns, so
// the per-socket flood limit can stay at its default; receivers are then all N sockets but the sender).
const WebSocket = require(process.env.WS_MODULE || 'ws');
const BASE = (process.env.BASE || 'http://127.0.0.1:8000').replace(/\/$/, '');
// bench: client i talks to BASES[i % BASES.length] (default: BASE alone); past SEATS it watches.
const BASES = (process.env.BASES || BASE).split(',').map(b => b.trim().replace(/\/$/, ''));
const SEATS = +(process.env.SEATS || 49);  // the room's 50 seats less the API creator's
const WIDTH = +(process.env.WIDTH || 32), HEIGHT = +(process.env.HEIGHT || 16), MINES = +(process.env.MINES || 20);
const N = +(process.env.N || 2);            // total clients in the room, A included
const MOVES = +(process.env.MOVES || 150);  // measured moves per kind
const WARM = +(process.env.WARM || 10);    // warm-up moves per kind (not counted)
const MOVERS = Math.max(1, Math.min(N, +(process.env.MOVERS || 1)));
const TIMEOUT = 5000;
const TAG = process.env.TAG || '';
const PICK = process.env.PICK || 'solver';
const sleep = ms => new Promise(r => setTimeout(r, ms));
// PAUSE_MS (10): a pause of PAUSE_MS to 2×PAUSE_MS between moves; 30 keeps two movers under a 20/s flood limit
const PAUSE_MS = Math.max(0, +(process.env.PAUSE_MS || 10));
const pause = () => sleep(PAUSE_MS + Math.random() * PAUSE_MS);
const META = '<div id="game-meta"';
const ERROR = '<div id="room-error"';

function stats(xs) {
  const a = [...xs].sort((x, y) => x - y), n = a.length;
  if (!n) return { n: 0 };
  const q = p => a[Math.max(0, Math.ceil(p * n) - 1)]; // nearest-rank
  const r = v => +v.toFixed(2);
  return { n, mean: r(a.reduce((s, x) => s + x, 0) / n), p50: r(q(.5)), p95: r(q(.95)), p99: r(q(.99)), max: r(a[n - 1]) };
}

function cookiesOf(res) {
  const out = {};
  for (const c of res.headers.getSetCookie()) {
    const kv = c.split(';', 1)[0], i = kv.indexOf('=');
    out[kv.slice(0, i).trim()] = kv.slice(i + 1);
  }
  return out;
}

// A browser joining by the invite link: the room page (CSRF cookie + token), then the nickname form.
async function join(code, nickname, BASE) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const page = await fetch(`${BASE}/r/${code}/`, { redirect: 'manual' });
      const html = await page.text(), ck = cookiesOf(page);
      const tok = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
      if (page.status !== 200 || !tok || !ck.csrftoken) throw new Error(`join page HTTP ${page.status}`);
      const res = await fetch(`${BASE}/r/${code}/join/`, {
        method: 'POST', redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `csrftoken=${ck.csrftoken}`,
                   Origin: BASE, Referer: `${BASE}/r/${code}/` },
        body: new URLSearchParams({ csrfmiddlewaretoken: tok[1], nickname }).toString(),
      });
      await res.text();
      const ck2 = cookiesOf(res);
      if (res.status !== 302 || !ck2.sessionid) throw new Error(`join form HTTP ${res.status}`);
      return `csrftoken=${ck.csrftoken}; sessionid=${ck2.sessionid}`;
    } catch (e) {
      if (attempt === 2) throw e;
      await sleep(500 * (attempt + 1));
    }
  }
}

function connect(code, cookie, BASE) {
  const watch = cookie === null ? '?watch=1' : '';  // bench: a spectator past the room's seats
  const s = new WebSocket(`${BASE.replace(/^http/, 'ws')}/ws/r/${code}/${watch}`, {
    headers: cookie === null ? { Origin: BASE } : { Cookie: cookie, Origin: BASE }, perMessageDeflate: false, maxPayload: 64 * 2 ** 20 });
  s.first = new Promise((res, rej) => {
    s.once('message', d => res(d.toString()));       // every connection starts with a snapshot
    s.once('error', rej);
    s.once('close', c => rej(new Error(`closed ${c} before the snapshot`)));
  });
  return new Promise((res, rej) => { s.once('open', () => res(s)); s.once('error', rej); });
}

(async () => {
  // Create the room through the JSON API (its creator seat stays offline; all N clients join by page).
  const made = await fetch(`${BASE}/api/rooms`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ game: 'minesweeper', width: WIDTH, height: HEIGHT, mines: MINES, mode: 'coop' }) });
  if (made.status !== 201) throw new Error(`POST /api/rooms: HTTP ${made.status} ${await made.text()}`);
  const { code, player_token: hostToken } = await made.json();
  // A new room seats 8 players; the host raises the cap to the seats this run fills.
  if (SEATS > 8 && N > 8) {
    const capped = await fetch(`${BASE}/api/rooms/${code}/host`, { method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${hostToken}` },
      body: JSON.stringify({ action: 'cap', players: Math.min(50, Math.max(SEATS, N) + 1) }) });
    if (capped.status !== 200) throw new Error(`POST /host cap: HTTP ${capped.status} ${await capped.text()}`);
  }

  const tJoin = performance.now();
  const cookies = [];
  let joinFail = 0;
  for (let i = 0; i < N; i++) {              // one after another: concurrent joins collide on the seat number
    if (i >= SEATS) { cookies.push(null); continue; }  // bench: watches
    try { cookies.push(await join(code, i === 0 ? 'alice' : `p${i}`, BASES[i % BASES.length])); } catch (e) { joinFail++; cookies.push(null); }
  }
  if (joinFail) throw new Error(`join failures: ${joinFail}`);
  const clients = [];
  for (let i = 0; i < N; i += 10) {           // connect in batches of 10, as the COOP probe
    const batch = [];
    for (let j = i; j < Math.min(N, i + 10); j++) batch.push(connect(code, cookies[j], BASES[j % BASES.length]));
    clients.push(...await Promise.all(batch));
  }
  const snapshots = await Promise.all(clients.map(s => s.first));
  const setup_s = +((performance.now() - tJoin) / 1000).toFixed(1);

  // Mirror of the board kept from the observer (a receiver); game state flags.
  const board = Array.from({ length: HEIGHT }, () => Array.from({ length: WIDTH }, () => ({ state: 'hidden', count: 0 })));
  let game = 0, generated = false, over = false, status = 'playing';
  let pending = null;
  let lastUpdBytes = 0, lastUpdCells = 0;
  const CELL = /<[^>]*\bid="cell-(\d+)-(\d+)"[^>]*>/g;
  const metaOf = (text) => {
    if (!text.startsWith(META)) return null;
    const end = text.indexOf('>');
    const tag = text.slice(0, end);
    const g = /data-game="(\d+)"/.exec(tag), v = /data-version="(-?\d+)"/.exec(tag), st = /data-status="(\w+)"/.exec(tag);
    return { game: g ? +g[1] : null, version: v ? +v[1] : null, status: st ? st[1] : null };
  };
  const applyCells = (text) => {
    let n = 0;
    for (const m of text.matchAll(CELL)) {
      const tag = m[0], x = +m[1], y = +m[2];
      const st = /data-state="([a-z-]+)"/.exec(tag), cnt = /data-count="(\d)"/.exec(tag);
      if (y < HEIGHT && x < WIDTH) board[y][x] = { state: st ? st[1] : '?', count: cnt ? +cnt[1] : 0 };
      n++;
    }
    return n;
  };
  const applyMeta = (m) => {
    if (!m || m.game === null) return;
    if (m.game !== game) { game = m.game; generated = m.version > 0; }
    status = m.status;
    over = status === 'won' || status === 'lost';
  };
  // The snapshot every socket starts with, as the observer (client 1, or 0 when N = 1) read it.
  const OBS = N > 1 ? 1 : 0;
  applyCells(snapshots[OBS]); applyMeta(metaOf(snapshots[OBS]));
  generated = [...board.flat()].some(c => c.state !== 'hidden' && c.state !== 'flagged');

  const counters = { errors: 0, gaps: 0, stale: 0, closes: [], frames: 0 };
  const seen = clients.map(() => ({ game: null, version: null }));
  const hit = (i) => {
    if (pending.seen[i] || !pending.recv[i]) return;
    pending.seen[i] = true;
    const t = performance.now() - pending.t0;
    if (pending.left === pending.total) pending.tFirst = t;
    if (--pending.left === 0) { const p = pending; pending = null; p.res({ t, tFirst: p.tFirst }); }
  };

  clients.forEach((s, i) => {
    s.removeAllListeners('message');
    s.on('close', (c) => counters.closes.push({ i, code: c }));
    s.on('message', (data) => {
      const text = data.toString();
      counters.frames++;
      if (text.startsWith(ERROR)) { counters.errors++; return; }
      const m = metaOf(text);
      if (m && m.game !== null && m.version !== null) {     // missed or out-of-order move messages
        const sv = seen[i];
        if (sv.game === m.game && sv.version !== null) {
          if (m.version > sv.version + 1) counters.gaps++;
          else if (m.version <= sv.version && m.version !== 0) counters.stale++;
        }
        sv.game = m.game; sv.version = m.version;
      }
      if (i === OBS) {
        const n = applyCells(text);
        if (m) applyMeta(m);
        if (m && n) { lastUpdCells = n; lastUpdBytes = data.length; }
      }
      if (!pending) return;
      if ((pending.kind === 'open' || pending.kind === 'flag' || pending.kind === 'first') && text.includes(pending.needle)) hit(i);
      else if (pending.kind === 'reset' && m && m.game !== null && m.game !== pending.game) hit(i);
    });
  });
  await sleep(500);
  // Let the presence (roster) fragments of the last connections settle before measuring.
  for (let k = 0; k < 40; k++) { const f0 = counters.frames; await sleep(250); if (counters.frames === f0) break; }
  const framesBefore = counters.frames;
  counters.frames = 0;

  let moveNo = 0;
  const DEADLINE = performance.now() + 1000 * +(process.env.DEADLINE_S || 240);
  let aborted = null;
  const move = (kind, action, x, y) => {
    const sender = moveNo++ % MOVERS;
    if (clients[sender].readyState !== WebSocket.OPEN) { aborted = aborted || `sender socket ${sender} closed`; return Promise.resolve({ timeout: true, got: -1 }); }
    if (performance.now() > DEADLINE) { aborted = aborted || 'deadline'; return Promise.resolve({ timeout: true, got: -1 }); }
    const recv = clients.map((_, i) => MOVERS === 1 ? i !== 0 : i !== sender);
    const total = recv.filter(Boolean).length;
    const p = new Promise(res => { pending = { kind, needle: `id="cell-${x}-${y}"`, game, t0: 0, left: total, total,
                                               recv, seen: new Array(N).fill(false), res }; });
    const body = action === 'new_game' ? { action: 'new_game' } : { action, x, y };
    pending.t0 = performance.now();
    clients[sender].send(JSON.stringify(body));
    let timer;
    const to = new Promise(res => { timer = setTimeout(() => {
      const got = pending ? pending.total - pending.left : -1; pending = null; res({ timeout: true, got }); }, TIMEOUT); });
    return Promise.race([p, to]).finally(() => clearTimeout(timer));
  };

  process.stderr.write('probe: measuring\n');  // bench: the server's CPU from here
  const res = { open: [], openFirstRecv: [], openCells: [], openBytes: [], openEnding: [],
                flag: [], flagFirstRecv: [], flagBytes: [], first: [], firstBytes: [], reset: [], timeouts: [], games: 0 };
  const cpu0 = process.cpuUsage();
  const tStart = performance.now();

  const hiddenCells = () => {
    const out = [];
    for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++)
      if (board[y][x].state === 'hidden') out.push([x, y]);
    return out;
  };
  const ensureLive = async () => {       // new game if over; generate board if needed (unmeasured for stats)
    if (over) {
      const g = await move('reset', 'new_game');
      if (g.timeout) res.timeouts.push({ kind: 'reset', got: g.got }); else res.reset.push(g.t);
      await pause();
    }
    if (!generated && !over) {
      const h = hiddenCells();
      const [x, y] = h[Math.floor(Math.random() * h.length)];
      lastUpdBytes = 0;
      const g = await move('first', 'reveal', x, y);
      if (g.timeout) { res.timeouts.push({ kind: 'first', got: g.got }); await sleep(500); }
      else { res.first.push(g.t); res.firstBytes.push(lastUpdBytes); generated = true; res.games++; }
      await pause();
    }
  };

  // Trivial single-cell deduction on the visible board (the same rule as coop_probe_n.js).
  const nbrs = (x, y) => { const o = []; for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
    const xx = x + dx, yy = y + dy; if ((dx || dy) && xx >= 0 && xx < WIDTH && yy >= 0 && yy < HEIGHT) o.push([xx, yy]); } return o; };
  const isOpen = (x, y) => board[y][x].state === 'revealed';
  const safeCells = () => {
    const mine = new Set(); const key = (x, y) => y * WIDTH + x;
    let changed = true;
    while (changed) {
      changed = false;
      for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) {
        const c = board[y][x]; if (c.state !== 'revealed' || !c.count) continue;
        const H = nbrs(x, y).filter(([a, b]) => !isOpen(a, b));
        if (H.length === c.count) for (const [a, b] of H) if (!mine.has(key(a, b))) { mine.add(key(a, b)); changed = true; }
      }
    }
    const safe = new Map();
    for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) {
      const c = board[y][x]; if (c.state !== 'revealed') continue;
      const H = nbrs(x, y).filter(([a, b]) => !isOpen(a, b));
      const M = H.filter(([a, b]) => mine.has(key(a, b)));
      if (M.length === c.count) for (const [a, b] of H) if (!mine.has(key(a, b)) && board[b][a].state === 'hidden') safe.set(key(a, b), [a, b]);
    }
    return [...safe.values()];
  };
  let guesses = 0;

  // Phase 1: reveals.
  let done = 0, loops = 0;
  while (done < WARM + MOVES && loops++ < 20 * (WARM + MOVES) && !aborted) {
    await ensureLive();
    if (over || !generated) continue;
    let h = PICK === 'solver' ? safeCells() : [];
    if (!h.length) { h = hiddenCells(); if (done >= WARM) guesses++; }
    if (!h.length) { over = true; continue; }
    const [x, y] = h[Math.floor(Math.random() * h.length)];
    lastUpdBytes = 0; lastUpdCells = 0;
    const g = await move('open', 'reveal', x, y);
    if (g.timeout) { if (aborted) break; res.timeouts.push({ kind: 'open', got: g.got }); await sleep(500); continue; }
    if (done >= WARM) {
      res.open.push(g.t); res.openFirstRecv.push(g.tFirst);
      res.openCells.push(lastUpdCells); res.openBytes.push(lastUpdBytes);
      res.openEnding.push(over);
    }
    done++;
    await pause();
  }

  // Phase 2: flag toggles (flag a hidden cell, then unflag it; each is one measured move).
  done = 0; loops = 0;
  let flagged = null;
  while (done < WARM + MOVES && loops++ < 20 * (WARM + MOVES) && !aborted) {
    await ensureLive();
    if (over || !generated) { flagged = null; continue; }
    let x, y;
    if (flagged) [x, y] = flagged;
    else { const h = hiddenCells(); if (!h.length) { over = true; continue; } [x, y] = h[Math.floor(Math.random() * h.length)]; }
    lastUpdBytes = 0;
    const g = await move('flag', 'flag', x, y);
    if (g.timeout) { if (aborted) break; res.timeouts.push({ kind: 'flag', got: g.got }); await sleep(500); continue; }
    flagged = flagged ? null : [x, y];
    if (done >= WARM) { res.flag.push(g.t); res.flagFirstRecv.push(g.tFirst); res.flagBytes.push(lastUpdBytes); }
    done++;
    await pause();
  }

  process.stderr.write('probe: measured\n');  // bench: ... to here
  const cpu = process.cpuUsage(cpu0);
  const single = res.openBytes.filter((b, i) => res.openCells[i] === 1);
  const nonEnding = res.open.filter((t, i) => !res.openEnding[i]);
  const out = {
    tag: TAG, N, receivers: N - 1, receivers_are: N > SEATS ? `${SEATS} players, ${N - SEATS} spectators` : 'players', bases: BASES.length, movers: MOVERS, board: `${WIDTH}x${HEIGHT}/${MINES}`, joinFail,
    setup_s, setup_frames: framesBefore,
    wall_s: +((performance.now() - tStart) / 1000).toFixed(1),
    client_cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    pick: PICK, games: res.games, guesses,
    open_last: stats(res.open), open_last_nonending: stats(nonEnding), open_firstrecv: stats(res.openFirstRecv),
    flag_last: stats(res.flag), flag_firstrecv: stats(res.flagFirstRecv),
    first_reveal: stats(res.first), reset: stats(res.reset),
    open_cells_per_update: stats(res.openCells), open_single_cell_moves: single.length,
    open_game_ending_moves: res.openEnding.filter(Boolean).length,
    bytes_single_cell_reveal: [...new Set(single)].sort((a, b) => a - b),
    bytes_flag: [...new Set(res.flagBytes)].sort((a, b) => a - b),
    bytes_open_max: Math.max(0, ...res.openBytes), bytes_first_reveal: stats(res.firstBytes),
    snapshot_bytes: Buffer.byteLength(snapshots[OBS]),
    aborted, timeouts: res.timeouts, errors: counters.errors, gaps: counters.gaps, stale: counters.stale,
    closes: counters.closes, frames_measured: counters.frames,
  };
  console.log(JSON.stringify(out));
  clients.forEach(s => s.close());
  await sleep(300);
  process.exit(0);
})().catch(e => { console.error('FAILED', e); process.exit(1); });
