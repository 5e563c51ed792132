// Client of bench.echo: N sockets to one server; socket 0 sends MESSAGES text frames of SIZE bytes,
// one at a time (10-20 ms apart, as the room probe paces moves), each timed to the LAST other socket
// receiving it. "probe: measuring" / "probe: measured" on stderr bracket the timed part. One JSON line.
const WebSocket = require(process.env.WS_MODULE || 'ws');
const URL = process.env.URL || 'ws://127.0.0.1:8765/';
const N = +(process.env.N || 100), MESSAGES = +(process.env.MESSAGES || 300), SIZE = +(process.env.SIZE || 170);
const sleep = ms => new Promise(r => setTimeout(r, ms));
const stats = xs => { const a = [...xs].sort((x, y) => x - y), q = p => a[Math.max(0, Math.ceil(p * a.length) - 1)];
  return { n: a.length, p50: +q(.5).toFixed(2), p99: +q(.99).toFixed(2) }; };
(async () => {
  const sockets = [];
  for (let i = 0; i < N; i += 10) {
    const batch = [];
    for (let j = i; j < Math.min(N, i + 10); j++) batch.push(new Promise((res, rej) => {
      const s = new WebSocket(URL, { perMessageDeflate: false, headers: { Origin: 'http://127.0.0.1' } });
      s.once('open', () => res(s)); s.once('error', rej); }));
    sockets.push(...await Promise.all(batch));
  }
  let pending = null;
  sockets.forEach((s, i) => s.on('message', (d) => {
    if (!pending || i === 0 || pending.seen[i] || !d.toString().startsWith(pending.tag)) return;
    pending.seen[i] = true;
    if (--pending.left === 0) { const p = pending; pending = null; p.res(performance.now() - p.t0); }
  }));
  await sleep(300);
  process.stderr.write('probe: measuring\n');
  const times = [];
  for (let m = 0; m < MESSAGES; m++) {
    const tag = `<div id="m${m}"`;
    const text = (tag + ' ' + 'x'.repeat(SIZE)).slice(0, Math.max(SIZE, tag.length + 1));
    const got = new Promise(res => { pending = { tag, left: N - 1, seen: new Array(N).fill(false), res, t0: 0 }; });
    pending.t0 = performance.now();
    sockets[0].send(text);
    times.push(await Promise.race([got, sleep(5000).then(() => NaN)]));
    await sleep(10 + Math.random() * 10);
  }
  process.stderr.write('probe: measured\n');
  console.log(JSON.stringify({ N, messages: MESSAGES, size: SIZE, last: stats(times.filter(t => !isNaN(t))), lost: times.filter(isNaN).length }));
  sockets.forEach(s => s.close());
  await sleep(200);
  process.exit(0);
})().catch(e => { console.error('FAILED', e); process.exit(1); });
