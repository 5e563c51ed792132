"""A long game looked at while another room plays (issue 26, item 6), on a real Daphne.

    python -m bench.long_replay_live [--moves 4700] [--viewers 3] [--seconds 10] [--port 9126]
                                     [--look page|api|seek]

One embedded Daphne (SQLite, in-memory layer: `make run`). Room A, the quiet room: an expert
board, one player moving 20 times a second, each move timed from send to screen. Room B: a 30x16
game under way of `moves` moves (`bench.long_replay`'s flag toggles). `viewers` processes then
look at room B over and over, as fast as the server answers, while room A keeps moving:
  - `page`: its replay page (the rewind a spectator opens), as a new viewer loads it;
  - `api`: `GET /api/rooms/<code>/games/1`;
  - `seek`: the page and then every chunk of its timeline, as a viewer who seeks through the
    whole game (the page's script fetches each once; chunked pages only).
Prints room A's move p50/p99 before and while they look, the views made, their bytes and
milliseconds, and Daphne's CPU while they look. 127.0.0.1 only; about `2 * seconds` + 30 s.
"""

import argparse
import asyncio
import json
import multiprocessing
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from . import procs
from .clients import Tracker, percentiles
from .hint_pressure import moves
from .scenarios import Matcher, make_rooms, size_spec, start_games

CHUNK_URL = re.compile(rb'"chunk_url": "([^"]+)"')
MOVES = re.compile(rb'"moves": (\d+)')


def urls_of(base: str, code: str, look: str) -> list[str]:
    """What one look at room B asks for, in order."""
    if look == "api":
        return [f"{base}/api/rooms/{code}/games/1"]
    page = f"{base}/r/{code}/games/1/"
    if look == "page":
        return [page]
    body = urllib.request.urlopen(page, timeout=60).read()
    found, total = CHUNK_URL.search(body), MOVES.search(body)
    assert found and total, "seek needs the chunked replay page"
    last = int(total[1])
    return [page] + [f"{base}{found[1].decode()}{first}/" for first in range(0, last, 500)]


def viewer(urls: list[str], stop, results) -> None:
    """Look, again and again, until `stop`: (views, bytes, milliseconds per view)."""
    views, size, times = 0, 0, []
    while not stop.is_set():
        started = time.perf_counter()
        for url in urls:
            size += len(urllib.request.urlopen(url, timeout=60).read())
        times.append((time.perf_counter() - started) * 1000)
        views += 1
    results.put((views, size, times))


async def run(moves_wanted: int, viewers: int, seconds: float, port: int, look: str) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="long-replay-live-"))
    shape = procs.embedded(workdir)
    procs.prepare(shape)
    code = procs.django_side(shape, "long_game", {"moves": moves_wanted})
    procs.free_port = lambda: port  # the one port this bench was given
    server = procs.Server(shape, workdir).start()
    try:
        base = f"http://{procs.HOST}:{port}"
        urls = urls_of(base, code, look)
        for url in urls:  # built and kept once: what every later view shares
            urllib.request.urlopen(url, timeout=120).read()
        tracker = Tracker()
        (a,) = await make_rooms(server, [size_spec("expert")], 1, 0, lambda r, s: port)
        matcher = Matcher(tracker)
        for client in a.clients:
            client.listen(matcher)
        await start_games(server, [a], tracker)
        await procs.wait_quiet()
        version = await moves(a, tracker, 1, seconds, phase=0)

        context = multiprocessing.get_context("fork")
        stop, results = context.Event(), context.Queue()
        lookers = [
            context.Process(target=viewer, args=(urls, stop, results)) for _ in range(viewers)
        ]
        meter = procs.CpuMeter(server.pids).start()
        for looker in lookers:
            looker.start()
        await asyncio.sleep(1.0)  # every viewer under way
        await moves(a, tracker, version, seconds, phase=1)
        stop.set()
        cpu = meter.stop()
        done = [results.get(timeout=120) for _ in lookers]
        for looker in lookers:
            looker.join(timeout=10)
        times = sorted(t for _, _, ts in done for t in ts)
        views = sum(v for v, _, _ in done)
        return {
            "look": look,
            "moves": moves_wanted,
            "viewers": viewers,
            "quiet_room_before": percentiles(tracker.samples.get(0, [])),
            "quiet_room_while_looking": percentiles(tracker.samples.get(1, [])),
            "views": views,
            "bytes_per_view": round(sum(s for _, s, _ in done) / max(1, views)),
            "view_ms": percentiles([t / 1000 for t in times]),
            "daphne_cpu_while_looking": cpu,
            "lost_moves": tracker.drop(0) + tracker.drop(1),
        }
    finally:
        print(server.log_tail(3), file=sys.stderr)
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4700)
    parser.add_argument("--viewers", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--port", type=int, default=9126)
    parser.add_argument("--look", choices=("page", "api", "seek"), default="page")
    args = parser.parse_args()
    figures = run(args.moves, args.viewers, args.seconds, args.port, args.look)
    try:
        result = asyncio.run(asyncio.wait_for(figures, 2 * args.seconds + 240))
    finally:
        procs.stop_all()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
