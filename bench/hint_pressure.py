"""One room hammered with hints, another room's moves timed (issue 14, item 6).

    python -m bench.hint_pressure [--seconds 8]

One Daphne on PostgreSQL and Redis (the production shape, one process: the hints and the moves
share its one database thread). Room A: an expert board, one player moving at 20 moves a second.
Room B: a 50x50 board (500 mines) played to mid-game, with 8 players' sockets asking for hints
as fast as the flood limit lets a socket send (15 a second each). Prints room A's move latency
(send to screen) with B quiet, then with B hammered, and what B's sockets heard. 127.0.0.1 only,
about 45 s in all; the Daphne dies with the bench.
"""

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from . import procs
from .clients import ERROR, Client, Tracker, percentiles, send_at_pace
from .scenarios import Matcher, Room, make_rooms, size_spec, start_games

MOVES_PER_SECOND = 20.0
HINTERS = 8
HINTS_PER_SECOND = 15.0
"""Per socket: under the flood limit (20 a second after a burst of 40), so no socket is closed."""
MID_GAME_REVEALS = 150


async def moves(room: Room, tracker: Tracker, version: int, seconds: float, phase: int) -> int:
    """Room A's player at MOVES_PER_SECOND for `seconds`; returns the last version sent."""
    assert room.board is not None
    rng, mover = random.Random(phase), room.players[0]
    started = time.perf_counter()
    for k in range(int(MOVES_PER_SECOND * seconds)):
        delay = started + k / MOVES_PER_SECOND - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        action, x, y = room.board.choose(rng)
        version += 1
        tracker.sent((room.index, version), len(room.clients), phase=phase)
        await mover.send(action, x, y)
    await tracker.drain(phase, timeout=5)
    return version


async def mid_game(room: Room, tracker: Tracker) -> None:
    """Room B: safe numbered cells revealed one by one, so the solver has a long frontier."""
    assert room.board is not None
    rng, version = random.Random(3), 1
    for _ in range(MID_GAME_REVEALS):
        action, x, y = room.board.choose(rng, reveal_share=1.0)
        version += 1
        tracker.sent((room.index, version), len(room.clients), phase=-2)
        await room.players[0].send(action, x, y)
        await asyncio.sleep(0.01)
    await tracker.drain(-2, timeout=30)
    tracker.drop(-2)


async def hammer(clients: list[Client], stop: asyncio.Event) -> int:
    """Every socket sends a hint at HINTS_PER_SECOND until `stop`; returns how many were sent."""
    return await send_at_pace(
        clients, json.dumps({"action": "hint"}).encode(), HINTS_PER_SECOND, stop
    )


def listen_hints(room: Room, matcher: Matcher, heard: dict[str, int]) -> None:
    """B's sockets count the hints announced to the room and the errors they alone got."""

    def on_message(client: Client, message: str, now: float) -> None:
        matcher(client, message, now)

    for client in room.clients:
        client.listen(on_message)
        assert client.screen is not None
        inner = client.screen.on_message

        def counting(message: str, now: float, inner=inner) -> None:
            if "asked for a hint" in message:
                heard["announced"] += 1
            elif message.startswith(ERROR) and "<span>" in message:
                heard["errors"] += 1
                heard.setdefault("last_error", message[:300])  # type: ignore[arg-type]
            if inner is not None:
                inner(message, now)

        client.screen.on_message = counting


async def run(seconds: float) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix="hint-pressure-"))
    production = procs.production(workdir)
    shape = procs.Shape("hint-pressure", 1, production.env, "1 Daphne, PostgreSQL, Redis pub/sub")
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    try:
        port = server.ports[0]
        tracker = Tracker()
        matcher = Matcher(tracker)
        (a,) = await make_rooms(server, [size_spec("expert")], 1, 0, lambda r, s: port)
        (b,) = await make_rooms(server, [size_spec("custom 50x50")], HINTERS, 0, lambda r, s: port)
        b.index = 1
        for client in b.clients:
            client.room = 1
        for client in a.clients:
            client.listen(matcher)
        heard: dict[str, int] = {"announced": 0, "errors": 0}
        listen_hints(b, matcher, heard)
        await start_games(server, [a, b], tracker)
        await mid_game(b, tracker)
        await procs.wait_quiet()

        meter = procs.CpuMeter(server.pids).start()
        version = await moves(a, tracker, 1, seconds, phase=0)
        quiet_cpu = meter.stop()

        stop = asyncio.Event()
        hammering = asyncio.create_task(hammer(b.players, stop))
        await asyncio.sleep(1.0)  # past the first burst: the steady state is what is measured
        heard_before = dict(heard)
        meter = procs.CpuMeter(server.pids).start()
        await moves(a, tracker, version, seconds, phase=1)
        hammered_cpu = meter.stop()
        stop.set()
        sent = await hammering
        return {
            "quiet": {**percentiles(tracker.samples.get(0, [])), **quiet_cpu},
            "hammered": {**percentiles(tracker.samples.get(1, [])), **hammered_cpu},
            "hints_sent": sent,
            "hints_announced_while_timed": heard["announced"] - heard_before["announced"],
            "hint_errors_while_timed": heard["errors"] - heard_before["errors"],
            "last_error": heard.get("last_error", ""),
            "lost_moves": tracker.drop(0) + tracker.drop(1),
        }
    finally:
        await asyncio.gather(*(c.close() for c in a.clients + b.clients), return_exceptions=True)
        print(server.log_tail(5), file=sys.stderr)
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="each timed phase")
    args = parser.parse_args()
    try:
        figures = asyncio.run(asyncio.wait_for(run(args.seconds), 110))
    finally:
        procs.stop_all()
    quiet, hammered = figures["quiet"], figures["hammered"]
    print(json.dumps(figures, indent=1))
    print(
        f"room A moves, B quiet:    p50 {quiet.get('p50_ms')} ms  p99 {quiet.get('p99_ms')} ms\n"
        f"room A moves, B hammered: p50 {hammered.get('p50_ms')} ms  "
        f"p99 {hammered.get('p99_ms')} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
