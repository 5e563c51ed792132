"""What one move costs before any socket: its round trips to the database, the write's time, and
the render, on SQLite (`make run`) and PostgreSQL.

    python -m bench.roundtrips [--moves 400]

For each database: a fresh one (a temp SQLite file; PostgreSQL's minesweeper_bench, dropped and
migrated), a 32x16 room with 20 mines and one player, the first reveal, then `--moves` flag
toggles through `dispatch.play` (what the consumer calls), each timed and its statements counted
(Django's CaptureQueriesContext), with the broadcast switched off; then as many again, each after
a 10 ms pause (a player's moves come apart, not in a loop); then the move fragment's render timed
alone. About 30 s.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import procs

PAUSE_S = 0.010
"""Before each move of the second loop, as the probe and players pause between moves: on this
machine a move after a pause runs from cold caches, several times slower than in a loop."""


def inner(moves: int) -> dict[str, object]:
    import django

    from games.rooms import dispatch, joining  # after django.setup()

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.broadcast import outbox
    from games.engine import minesweeper as engine
    from games.kinds.minesweeper import render, rules
    from games.kinds.table import MoveNews
    from games.protocol.messages import CellMove

    outbox.send = lambda *args, **kwargs: None  # the write and the render alone, no fan-out
    settings = rules.validate_settings(32, 16, 20, False)
    room = joining.create_room("minesweeper", settings)
    player = joining.join_room(room, "alice")
    dispatch.play(room, player, CellMove("reveal", 16, 8))
    state = engine.from_dict(room.current_game().state)
    hidden = next(i for i in range(32 * 16) if i not in state.revealed)
    x, y = hidden % 32, hidden // 32
    times, counts, statements = [], [], {}
    for _ in range(moves):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            outcome = dispatch.play(room, player, CellMove("flag", x, y))
            times.append(1000 * (time.perf_counter() - started))
        counts.append(len(queries))
        for query in queries.captured_queries:
            verb = query["sql"].split()[0].upper()
            statements[verb] = statements.get(verb, 0) + 1
    paused = []
    for _ in range(moves):
        time.sleep(PAUSE_S)
        started = time.perf_counter()
        dispatch.play(room, player, CellMove("flag", x, y))
        paused.append(1000 * (time.perf_counter() - started))
    news = MoveNews(room, outcome.game, outcome.applied, player, None)
    render_ms = []
    for _ in range(2000):
        started = time.perf_counter()
        render.move_html(news)
        render_ms.append(1000 * (time.perf_counter() - started))
    times.sort()
    paused.sort()
    return {
        "database": connection.vendor,
        "moves": moves,
        "statements_per_move": statistics.mean(counts),
        "statements": {verb: round(n / moves, 2) for verb, n in statements.items()},
        "play_ms_p50": round(times[len(times) // 2], 3),
        "play_ms_p99": round(times[int(len(times) * 0.99)], 3),
        "paused_play_ms_p50": round(paused[len(paused) // 2], 3),
        "paused_play_ms_p99": round(paused[int(len(paused) * 0.99)], 3),
        "render_ms_median": round(statistics.median(render_ms), 4),
        "fragment_bytes": len(render.move_html(news).encode()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.roundtrips", description=__doc__)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        print(json.dumps(inner(args.moves)))
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="minesweeper-roundtrips-") as tmp:
        for shape in (procs.embedded(Path(tmp)), procs.production(Path(tmp))):
            procs.prepare(shape)
            done = subprocess.run(
                [sys.executable, "-m", "bench.roundtrips", "--inner", "--moves", str(args.moves)],
                cwd=procs.ROOT,
                env=shape.env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode:
                raise RuntimeError(done.stderr[-3000:])
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("One move before any socket: a flag toggle through dispatch.play, broadcast off")
    print(
        f"{'database':<11} {'statements':>10} {'play p50':>8} {'p99':>6} "
        f"{'paused p50':>10} {'p99':>6} {'render':>7}  kinds"
    )
    for row in rows:
        print(
            f"{row['database']:<11} {row['statements_per_move']:>10.2f} {row['play_ms_p50']:>8} "
            f"{row['play_ms_p99']:>6} {row['paused_play_ms_p50']:>10} {row['paused_play_ms_p99']:>6} "
            f"{row['render_ms_median']:>7}  {row['statements']}"
        )
    print(
        "  ms; statements = round trips to the database per move (SQLite's are in-process calls);"
        f" paused = the same moves, each after a {1000 * PAUSE_S:.0f} ms pause"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
