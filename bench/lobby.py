"""Quick match under a stream of seekers (issue 37): every seeker paired, none twice, and how long
each waited.

    python -m bench.lobby [--shape embedded|production] [--seekers 200] [--seconds 10] [--port N]

`--shape embedded` (the default, `make run`'s): one Daphne, SQLite, the in-memory layer;
`--shape production`: two Daphnes on PostgreSQL and Redis (`bench.procs.production`), the
seekers taking turns between them, so pairs are made across processes. `--seekers` bots arrive
evenly over `--seconds`, each opening `/ws/lobby/` (JSON) and seeking one of three games in turn
(Flags, tic-tac-toe, a beginner race for two), so every seeker has a compatible partner but the
one that arrives last of an odd count. A seeker's wait is from its `seek` to its `matched`. It
prints the pairs made, the seekers matched, any seeker told twice or any room not of two, and
the wait's p50 and p90. 127.0.0.1 only, on `--port` or a free one; the Daphne dies with the bench.
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from websockets.asyncio.client import connect

from . import procs

GAMES = (
    {"game": "flags"},
    {"game": "tictactoe"},
    {"game": "minesweeper", "mode": "race", "preset": "beginner", "players": 2},
)
WAIT_LIMIT = 30.0
"""Seconds a seeker waits for its `matched` before the bench counts it unmatched."""


async def seeker(port: int, number: int, start_at: float, told: list[dict]) -> None:
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    url = f"ws://{procs.HOST}:{port}/ws/lobby/"
    async with connect(url, subprotocols=["json"], max_size=2**20) as socket:
        game = GAMES[number % len(GAMES)]
        sent = time.monotonic()
        await socket.send(json.dumps({"action": "seek", "name": f"bot{number}", **game}))
        deadline = sent + WAIT_LIMIT
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = json.loads(await asyncio.wait_for(socket.recv(), left))
            except TimeoutError:
                break
            if event["type"] == "matched":
                told.append(
                    {"seeker": number, "room": event["room"], "wait": time.monotonic() - sent}
                )
                # Stay a moment: a second `matched` would be counted.
                with_more = asyncio.wait_for(socket.recv(), 0.2)
                try:
                    again = json.loads(await with_more)
                    if again["type"] == "matched":
                        told.append({"seeker": number, "room": again["room"], "wait": 0.0})
                except TimeoutError:
                    pass
                return
            if event["type"] == "error":
                print(json.dumps({"seeker": number, "error": event["error"]}), flush=True)
                return


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


SHAPES = ("embedded", "production")


async def run(shape_name: str, seekers: int, seconds: float, port: int | None) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix="lobby-bench-"))
    if port is not None:
        procs.free_port = lambda: port
    shape = procs.embedded(workdir) if shape_name == "embedded" else procs.production(workdir)
    procs.prepare(shape)
    server = procs.Server(shape, workdir).start()
    told: list[dict] = []
    try:
        begin = time.monotonic() + 0.5
        step = seconds / max(1, seekers)
        await asyncio.gather(
            *(
                seeker(server.ports[n % len(server.ports)], n, begin + n * step, told)
                for n in range(seekers)
            )
        )
    finally:
        server.stop()
    per_seeker = Counter(entry["seeker"] for entry in told)
    per_room = Counter(entry["room"] for entry in told)
    waits = [entry["wait"] for entry in told]
    figures = {
        "shape": shape.label,
        "seekers": seekers,
        "seconds": seconds,
        "matched": len(per_seeker),
        "pairs": len(per_room),
        "told_twice": sum(1 for count in per_seeker.values() if count > 1),
        "rooms_not_of_two": sum(1 for count in per_room.values() if count != 2),
        "wait_p50_ms": round(1000 * percentile(waits, 0.5), 1),
        "wait_p90_ms": round(1000 * percentile(waits, 0.9), 1),
        "wait_mean_ms": round(1000 * statistics.fmean(waits), 1) if waits else None,
    }
    print(json.dumps(figures), flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=SHAPES, default="embedded")
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--port", type=int, default=None, help="default: any free port")
    args = parser.parse_args()
    asyncio.run(run(args.shape, args.seekers, args.seconds, args.port))


if __name__ == "__main__":
    main()
