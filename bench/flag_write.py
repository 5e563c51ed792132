"""What one flag costs on the database thread, in process, on SQLite; and how much of that is
Django's transaction and cursor around the move's two statements.

    python -m bench.flag_write [--rounds 4] [--flags 500]

A flag is the cheapest move there is, so what a flag costs is the fixed part of every move: the
kept game, the engine, the write, the fragment handed to the outbox. Each flag goes through
`dispatch.play` as a socket's does, with a running event loop beside it (on a thread of its own)
that takes the outbox's message, as the server's loop does. Two ways, in interleaved blocks:

- `django`: the write as the project makes it (`rowsql.write_move`: `atomic`, Django's cursor);
- `driver`: the same two statements sent straight to the sqlite3 connection, between BEGIN
  IMMEDIATE and COMMIT. The project does not do this (it bypasses Django's transaction state:
  docs/operations.md, "Library internals"); it is here to measure what that would buy.

Prints JSON: per way, p50 / p90 µs per flag and CPU µs per flag, each the mean of the rounds.
Run it pinned to one CPU (`taskset -c 0`) on a quiet machine.
"""

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from . import procs


def _server_loop() -> None:
    """A running loop on a thread of its own, noted for this thread as the server's loop notes
    itself, so that `outbox.send` hands the message over instead of delivering it here."""
    from games import server_loop

    loop = asyncio.new_event_loop()
    started = threading.Event()
    loop.call_soon(started.set)
    threading.Thread(target=loop.run_forever, daemon=True, name="bench loop").start()
    started.wait()
    server_loop.note(loop)


def _driver_write() -> Callable[[Sequence[tuple[str, Sequence[Any]]]], bool]:
    """`rowsql._execute_write` on the driver's connection, for autocommit writes (every flag's)."""
    from django.db import connection

    @cache
    def qmark(sql: str) -> str:
        return sql.replace("%s", "?")

    def write(statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
        connection.ensure_connection()
        driver = connection.connection
        driver.execute("BEGIN IMMEDIATE")
        try:
            for sql, values in statements:
                if driver.execute(qmark(sql), values).rowcount != 1:
                    driver.rollback()
                    return False
        except BaseException:
            driver.rollback()
            raise
        driver.commit()
        return True

    return write


def measure(rounds: int, flags: int) -> dict[str, dict[str, float]]:
    from games.engine import minesweeper as engine
    from games.kinds.minesweeper import rules as minesweeper
    from games.protocol.messages import CellMove
    from games.rooms import dispatch, joining
    from games.store import rowsql

    room = joining.create_room("minesweeper", minesweeper.validate_settings(32, 16, 20))
    player = joining.join_room(room, "Ada")
    joining.join_room(room, "Bea")
    dispatch.play(room, player, CellMove("reveal", 16, 8))
    revealed = engine.from_dict(room.current_game().state).revealed
    hidden = next(cell for cell in range(32 * 16) if cell not in revealed)
    flag = CellMove("flag", hidden % 32, hidden // 32)
    ways = {"django": rowsql._execute_write, "driver": _driver_write()}
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in ways}

    def block(count: int) -> tuple[float, float, float]:
        times = []
        cpu = time.process_time()
        for _ in range(count):
            started = time.perf_counter()
            outcome = dispatch.play(room, player, flag)
            times.append(time.perf_counter() - started)
            assert outcome.applied.changed, "every flag toggles the cell"
        cpu = time.process_time() - cpu
        times.sort()
        return times[len(times) // 2], times[int(0.9 * len(times))], cpu / count

    for write in ways.values():  # warm both ways: code, caches, the kept game
        rowsql._execute_write = write
        block(200)
    for round_number in range(rounds):
        order = list(ways) if round_number % 2 == 0 else list(reversed(ways))
        for name in order:
            rowsql._execute_write = ways[name]
            figures[name].append(block(flags))
    rowsql._execute_write = ways["django"]
    return {
        name: {
            "p50_us": round(1e6 * statistics.mean(f[0] for f in rows), 1),
            "p90_us": round(1e6 * statistics.mean(f[1] for f in rows), 1),
            "cpu_us": round(1e6 * statistics.mean(f[2] for f in rows), 1),
        }
        for name, rows in figures.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--flags", type=int, default=500)
    options = parser.parse_args()
    procs.setup_django("flag-write")
    _server_loop()
    json.dump(measure(options.rounds, options.flags), sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
