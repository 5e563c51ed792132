"""Sockets that cost the server without playing, and a quiet room's moves timed meanwhile
(issue 26, items 1 and 7).

    python -m bench.slow_readers [--attack slow|refused] [--shape embedded|production]
                                 [--sockets 60] [--seconds 10] [--attack-seconds 10]
    python -m bench --only attack   (the slow attack, 2 minutes, in both shapes)

One embedded Daphne (SQLite, in-memory layer: `make run`), or production's two (PostgreSQL,
Redis; everything below aims at the first, the worst case for its quiet room). Room A: an expert
board, one player moving at 20 moves a second, timed from send to screen. Room B: a 50x50 board
under attack:
  - `slow`: spectator sockets that never read (a 4 KiB receive window) ask for a snapshot 18
    times a second, inside the flood limit, until the server cuts them off at its output limit;
    each then connects again, until the attack ends;
  - `refused`: spectator sockets send reveals (refused: spectators cannot play) 16 times a
    second each.
Prints room A's move p50/p99 before (`--seconds`) and during the attack (`--attack-seconds`),
and the Daphnes' resident memory before, at its peak during, and 10 s after the attack.
127.0.0.1 only, bounded (the attack plus about a minute); the Daphnes die with the bench.
"""

import argparse
import asyncio
import base64
import json
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from games.protocol.flood import SPECTATOR_MESSAGES

from . import procs
from .clients import Client, Tracker, percentiles, send_at_pace
from .hint_pressure import moves
from .scenarios import Matcher, make_rooms, size_spec, start_games

SYNCS_PER_SECOND = 0.9 * SPECTATOR_MESSAGES.per_second
REVEALS_PER_SECOND = 0.9 * SPECTATOR_MESSAGES.per_second
"""Both per socket, under a spectator's flood limit (`flood.SPECTATOR_MESSAGES`; until issue 26
they went at 18 and 16 a second, under the 20 every socket had): no socket is closed for
flooding, so only what the server does with the messages is measured. `--pace` sends faster."""
AFTER_SECONDS = 10.0
SHAPES = ("embedded", "production")


def sync_frame() -> bytes:
    """A client's masked text frame (a zero mask leaves the payload as is) asking for a snapshot."""
    payload = json.dumps({"action": "sync"}).encode()
    return bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def non_reading_socket(port: int, code: str, source: str = "") -> socket.socket:
    """A spectator's websocket with a tiny receive window; nothing is read after the headers.
    `source`: an `X-Forwarded-For` address, a client behind the proxy (`bench.ping_flood`)."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect((procs.HOST, port))
    key = base64.b64encode(os.urandom(16)).decode()
    client.sendall(
        (
            f"GET /ws/r/{code}/?watch=1 HTTP/1.1\r\nHost: {procs.HOST}:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://{procs.HOST}:{port}\r\n"
            + (f"X-Forwarded-For: {source}\r\n" if source else "")
            + "\r\n"
        ).encode()
    )
    client.settimeout(10)
    response = b""
    while b"\r\n\r\n" not in response:
        response += client.recv(1)
    return client


def slow_readers(port: int, code: str, count: int, stop: threading.Event) -> dict[str, int]:
    """`count` non-reading sockets asking for snapshots until `stop`; a socket cut off is
    replaced by a new one. On a thread of its own: blocking sockets, paced by the clock."""
    frame, cut_off = sync_frame(), 0
    sockets = [non_reading_socket(port, code) for _ in range(count)]
    while not stop.is_set():
        started = time.monotonic()
        for index, client in enumerate(sockets):
            try:
                client.sendall(frame)
            except OSError:  # reset: the server cut it off
                cut_off += 1
                client.close()
                sockets[index] = non_reading_socket(port, code)
        stop.wait(max(0.0, 1 / SYNCS_PER_SECOND - (time.monotonic() - started)))
    for client in sockets:
        client.close()
    return {"cut_off": cut_off}


async def refused_reveals(clients: list[Client], stop: asyncio.Event) -> dict[str, int]:
    """Every spectator socket sends a reveal at REVEALS_PER_SECOND until `stop`."""
    body = json.dumps({"action": "reveal", "x": 1, "y": 1}).encode()
    return {"reveals_sent": await send_at_pace(clients, body, REVEALS_PER_SECOND, stop)}


async def run(
    attack: str,
    count: int,
    seconds: float,
    shape_name: str = "embedded",
    attack_seconds: float | None = None,
) -> dict[str, object]:
    """One attack on one shape (`SHAPES`): `seconds` of quiet moves, then `attack_seconds` (as
    long, unless given) of them under attack."""
    workdir = Path(tempfile.mkdtemp(prefix="slow-readers-"))
    shape = procs.embedded(workdir) if shape_name == "embedded" else procs.production(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    b_clients: list[Client] = []
    try:
        port = server.ports[0]
        tracker = Tracker()
        (a,) = await make_rooms(server, [size_spec("expert")], 1, 0, lambda r, s: port)
        spectators = count if attack == "refused" else 0
        (b,) = await make_rooms(
            server, [size_spec("custom 50x50")], 1, spectators, lambda r, s: port
        )
        b.index, b_clients = 1, b.clients
        for client in b.clients:
            client.room = 1
        matcher = Matcher(tracker)
        for client in a.clients + b.clients:
            client.listen(matcher)
        await start_games(server, [a, b], tracker)
        await procs.wait_quiet()
        before, load = sum(server.rss()), os.getloadavg()[0]
        parts_before = server.rss_parts()
        version = await moves(a, tracker, 1, seconds, phase=0)

        stop, done = threading.Event(), asyncio.Event()
        if attack == "slow":
            attacking = asyncio.create_task(
                asyncio.to_thread(slow_readers, port, b.code, count, stop)
            )
        else:
            attacking = asyncio.create_task(refused_reveals(b.spectators, done))
        peak = before

        async def watch_memory() -> None:
            nonlocal peak
            while not (stop.is_set() or done.is_set()):
                peak = max(peak, sum(server.rss()))
                await asyncio.sleep(0.2)

        watching = asyncio.create_task(watch_memory())
        await asyncio.sleep(1.0)  # past the first burst: the steady state is what is measured
        await moves(a, tracker, version, attack_seconds or seconds, phase=1)
        stop.set()
        done.set()
        attacked = await attacking
        await watching
        await asyncio.sleep(AFTER_SECONDS)  # what stays once the attack is over
        after, parts_after = sum(server.rss()), server.rss_parts()
        return {
            "attack": attack,
            "shape": shape.label,
            "sockets": count,
            "attack_seconds": attack_seconds or seconds,
            "load_1min_before": load,
            "quiet": percentiles(tracker.samples.get(0, [])),
            "attacked": percentiles(tracker.samples.get(1, [])),
            "rss_mb": {
                "before": round(before / 2**20, 1),
                "peak_during": round(peak / 2**20, 1),
                "after": round(after / 2**20, 1),
                "after_seconds": AFTER_SECONDS,
            },
            "rss_after_vs_before_pct": round(100 * (after - before) / before, 1),
            "rss_parts_mb": {"before": parts_before, "after": parts_after},
            **attacked,
            "lost_moves": tracker.drop(0) + tracker.drop(1),
        }
    finally:
        await asyncio.gather(*(c.close() for c in b_clients), return_exceptions=True)
        print(server.log_tail(3), file=sys.stderr)
        server.stop()


def main() -> int:
    global SYNCS_PER_SECOND, REVEALS_PER_SECOND  # noqa: PLW0603 (one run per process)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attack", choices=("slow", "refused"), default="slow")
    parser.add_argument("--sockets", type=int, default=60)
    parser.add_argument("--shape", choices=SHAPES, default="embedded")
    parser.add_argument("--seconds", type=float, default=10.0, help="quiet moves before")
    parser.add_argument("--attack-seconds", type=float, default=10.0, help="moves under attack")
    parser.add_argument(
        "--pace",
        type=float,
        default=SYNCS_PER_SECOND,
        help="messages a second per attacking socket (18 and 16 were the attacks before a "
        "spectator's own flood limit; past that limit sockets are closed and come again)",
    )
    args = parser.parse_args()
    SYNCS_PER_SECOND = REVEALS_PER_SECOND = args.pace
    attack = run(args.attack, args.sockets, args.seconds, args.shape, args.attack_seconds)
    try:
        figures = asyncio.run(asyncio.wait_for(attack, args.seconds + args.attack_seconds + 150))
    finally:
        procs.stop_all()
    print(json.dumps(figures, indent=1))
    quiet, attacked = figures["quiet"], figures["attacked"]
    for phase, figure in (("before", quiet), ("during", attacked)):
        print(
            f"room A moves, {phase}: p50 {figure.get('p50_ms')} ms  p95 {figure.get('p95_ms')} ms"
            f"  p99 {figure.get('p99_ms')} ms"
        )
    print(
        f"Daphne RSS (MB): {figures['rss_mb']}, after the attack "
        f"{figures['rss_after_vs_before_pct']:+} % of before"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
