"""Pings at their rate limits do not slow moves (issue 28): move -> every screen in one room of 20
tabs (4 players, 16 spectators), one player moving at 20 a second, with and without the three
other players pinging above their budgets, interleaved.

    python -m bench.pings [--rounds 3] [--seconds 8] [--port 9741]

One Daphne, SQLite in a temp dir, in-memory layer (the embedded shape). Each round runs both
modes, in alternating order, on a fresh room; what a ping run adds is the pings that reach every
screen (at most the room's budget) and the refusals that reach their pinger alone.
"""

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
from pathlib import Path

from . import procs
from .clients import Client, close_all
from .scenarios import Room, start_games, steady_moves, watched_expert_room

CLIENTS, PLAYERS = 20, 4
PINGS_PER_SECOND = 2.0
"""Each pinger's pace: twice its own budget (1 a second after a burst of 4), so the player's, the
address's and the room's budgets all refuse some (every bench tab shares 127.0.0.1)."""


async def ping_away(pinger: Client, room: Room, stop: asyncio.Event, seed: int) -> int:
    rng, sent = random.Random(seed), 0
    while not stop.is_set():
        await pinger.send("ping", rng.randrange(room.width), rng.randrange(room.height))
        sent += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1 / PINGS_PER_SECOND)
    return sent


async def one_run(server: procs.Server, pings: bool, seconds: float) -> dict[str, object]:
    room, tracker = await watched_expert_room(server, PLAYERS, CLIENTS - PLAYERS)
    stop = asyncio.Event()
    try:
        await start_games(server, [room], tracker)
        busy = await procs.wait_quiet()
        pingers = room.players[1:] if pings else []
        tasks = [asyncio.create_task(ping_away(p, room, stop, n)) for n, p in enumerate(pingers)]
        received_before = sum(c.received for c in room.spectators)
        figures = await steady_moves(server, room, tracker, 20.0, seconds)
        stop.set()
        sent = sum(await asyncio.gather(*tasks))
        spectator_messages = sum(c.received for c in room.spectators) - received_before
    finally:
        stop.set()
        await close_all(room.clients)
    refused = sum(c.errors for c in room.players[1:])
    return {
        "pings": pings,
        "pings_sent": sent,
        "pings_refused": refused,
        "messages_per_spectator": round(spectator_messages / len(room.spectators), 1),
        "busy_before_pct": busy,
        **{k: v for k, v in figures.items() if k != "errors"},
        "mover_errors": room.players[0].errors,
    }


async def run(rounds: int, seconds: float, port: int) -> list[dict[str, object]]:
    workdir = Path(tempfile.mkdtemp(prefix="bench-pings-"))
    shape = procs.embedded(workdir)
    procs.prepare(shape)
    procs.free_port = lambda: port  # the one port this bench was given
    server = procs.Server(shape, workdir).start()
    results = []
    try:
        for n in range(rounds):
            for pings in (False, True) if n % 2 == 0 else (True, False):
                result = await one_run(server, pings, seconds)
                print(json.dumps(result), file=sys.stderr)
                results.append({"round": n, **result})
    finally:
        print(server.log_tail(3), file=sys.stderr)
        server.stop()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--port", type=int, default=9741)
    args = parser.parse_args()
    budget = args.rounds * 2 * (args.seconds + 60)
    try:
        results = asyncio.run(asyncio.wait_for(run(args.rounds, args.seconds, args.port), budget))
    finally:
        procs.stop_all()
    for mode in (False, True):
        runs = [r for r in results if r["pings"] is mode]
        p50 = sorted(r["p50_ms"] for r in runs)
        p99 = sorted(r["p99_ms"] for r in runs)
        print(f"pings {'on ' if mode else 'off'}: p50 {p50} ms, p99 {p99} ms")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
