"""Engine benchmark: one reveal that cascades over a whole empty board.

    python -m bench.engine_reveal [--json PATH]

Each board has a single mine in the far corner, so a click in the opposite corner floods every
other cell and wins. The time is `apply_move` alone (the minefield is built beforehand, as it is
after a game's first click). Big boards get fewer repeats so the whole run stays bounded; the
microseconds per opened cell should stay roughly flat as boards grow, showing linear cost.
"""

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from games.engine.grid import Grid
from games.engine.minesweeper import (
    Action,
    CellsRevealed,
    Config,
    GameState,
    Minefield,
    Move,
    Status,
    apply_move,
)

SIDES = (10, 30, 100, 300, 1000)
MAX_REPEATS = 200
MIN_REPEATS = 3
BUDGET_SECONDS = 3.0
"""Time allowed per board size; the repeat count is what fits in it (within the limits above)."""
TARGET_MS = {100: 10.0}
"""The figure the design promises: a 100x100 full cascade in under 10 ms."""


@dataclass(frozen=True)
class Result:
    side: int
    cells_opened: int
    repeats: int
    median_ms: float
    p95_ms: float
    us_per_cell: float


def empty_board(side: int) -> GameState:
    """A game whose only mine sits in the bottom-right corner, nothing revealed yet."""
    grid = Grid(side, side)
    field = Minefield.build(grid, [grid.size - 1])
    return GameState(config=Config(side, side, 1), seed=0, field=field)


def time_reveal(state: GameState) -> tuple[float, int]:
    """Seconds for one full-cascade reveal, and how many cells it opened."""
    move = Move(Action.REVEAL, 0, 0)
    started = time.perf_counter()
    after, events = apply_move(state, move)
    elapsed = time.perf_counter() - started
    assert after.status is Status.WON
    assert isinstance(events[0], CellsRevealed)
    return elapsed, len(events[0].cells)


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile: a value that was actually measured."""
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


def measure(side: int, budget: float = BUDGET_SECONDS) -> Result:
    state = empty_board(side)
    first, opened = time_reveal(state)  # also a warm-up, and the estimate for the repeat count
    repeats = int(min(MAX_REPEATS, max(MIN_REPEATS, budget // max(first, 1e-6))))
    samples = [time_reveal(state)[0] for _ in range(repeats)]
    median = statistics.median(samples)
    return Result(
        side=side,
        cells_opened=opened,
        repeats=repeats,
        median_ms=median * 1e3,
        p95_ms=percentile(samples, 0.95) * 1e3,
        us_per_cell=median * 1e6 / opened,
    )


def table(results: list[Result]) -> str:
    lines = [
        f"{'board':>11} {'opened':>9} {'repeats':>7} {'median ms':>10} {'p95 ms':>9} {'µs/cell':>8}"
    ]
    for r in results:
        board = f"{r.side}x{r.side}"
        target = TARGET_MS.get(r.side)
        verdict = "" if target is None else f"  (target < {target:g} ms: "
        if target is not None:
            verdict += "met)" if r.median_ms < target else "MISSED)"
        lines.append(
            f"{board:>11} {r.cells_opened:>9} {r.repeats:>7} {r.median_ms:>10.3f} "
            f"{r.p95_ms:>9.3f} {r.us_per_cell:>8.3f}{verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_reveal", description=__doc__)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    args = parser.parse_args(argv)
    print(f"Full-cascade reveal, Python {sys.version.split()[0]}")
    results = []
    for side in SIDES:
        results.append(measure(side))
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
        print(f"Wrote {args.json}")
    return 0  # a figure, not a gate: a busy machine should not fail a build


if __name__ == "__main__":
    sys.exit(main())
