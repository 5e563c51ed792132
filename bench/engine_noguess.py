"""Engine benchmark: no-guess board generation and the solver that checks it.

    python -m bench.engine_noguess [--seeds N] [--budget SECONDS] [--json PATH]

For each board size, boards are generated from seeds 0, 1, 2, ... with the first click in the
centre. Generation time is the whole `generate_no_guess` call; solver time is one `is_solvable`
run on the board it produced (the check a stored board would get). A size stops early once its
time budget is spent, and the table says how many seeds it ran, so the whole run stays bounded.
"""

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from games.engine.errors import GenerationError
from games.engine.grid import Grid
from games.engine.noguess import generate_no_guess
from games.engine.solver import is_solvable

SIZES = (
    ("beginner", 9, 9, 10),
    ("intermediate", 16, 16, 40),
    ("expert", 30, 16, 99),
    ("50x50 20%", 50, 50, 500),
)
SEEDS = 100
BUDGET_SECONDS = 60.0
"""Time allowed per board size; a size that needs more reports fewer seeds instead of stalling."""
TARGET_MS = {"expert": 200.0}
"""The figure the design promises: an expert no-guess board in under 200 ms (median)."""


@dataclass(frozen=True)
class Result:
    name: str
    width: int
    height: int
    mines: int
    seeds_run: int
    seeds_asked: int
    success_rate: float
    median_ms: float
    p95_ms: float
    max_ms: float
    solver_median_ms: float | None


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile: a value that was actually measured."""
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


def time_seed(grid: Grid, mines: int, start: int, seed: int) -> tuple[float, float | None]:
    """Seconds to generate one board, and seconds for the solver to re-check it (None: failed)."""
    started = time.perf_counter()
    try:
        board = generate_no_guess(grid, mines, start, random.Random(seed))
    except GenerationError:
        return time.perf_counter() - started, None
    generated = time.perf_counter() - started
    started = time.perf_counter()
    solvable = is_solvable(grid, board, start)
    checked = time.perf_counter() - started
    assert solvable, f"seed {seed} gave a board the solver cannot finish"
    return generated, checked


def measure(name: str, width: int, height: int, mines: int, seeds: int, budget: float) -> Result:
    grid = Grid(width, height)
    start = grid.index(width // 2, height // 2)
    generation: list[float] = []
    solving: list[float] = []
    deadline = time.perf_counter() + budget
    for seed in range(seeds):
        generated, checked = time_seed(grid, mines, start, seed)
        generation.append(generated)
        if checked is not None:
            solving.append(checked)
        if time.perf_counter() > deadline:
            break
    return Result(
        name=name,
        width=width,
        height=height,
        mines=mines,
        seeds_run=len(generation),
        seeds_asked=seeds,
        success_rate=len(solving) / len(generation),
        median_ms=statistics.median(generation) * 1e3,
        p95_ms=percentile(generation, 0.95) * 1e3,
        max_ms=max(generation) * 1e3,
        solver_median_ms=statistics.median(solving) * 1e3 if solving else None,
    )


def table(results: list[Result]) -> str:
    lines = [
        f"{'board':>14} {'size':>7} {'mines':>5} {'seeds':>7} {'ok':>5} {'median ms':>10} "
        f"{'p95 ms':>8} {'max ms':>8} {'solver ms':>10}"
    ]
    for r in results:
        seeds = f"{r.seeds_run}/{r.seeds_asked}"
        solver = "-" if r.solver_median_ms is None else f"{r.solver_median_ms:.2f}"
        target = TARGET_MS.get(r.name)
        verdict = ""
        if target is not None:
            verdict = f"  (target < {target:g} ms: {'met' if r.median_ms < target else 'MISSED'})"
        lines.append(
            f"{r.name:>14} {f'{r.width}x{r.height}':>7} {r.mines:>5} {seeds:>7} "
            f"{r.success_rate:>5.0%} {r.median_ms:>10.2f} {r.p95_ms:>8.2f} {r.max_ms:>8.2f} "
            f"{solver:>10}{verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_noguess", description=__doc__)
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds per board size")
    parser.add_argument(
        "--budget", type=float, default=BUDGET_SECONDS, help="seconds allowed per board size"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    args = parser.parse_args(argv)
    print(f"No-guess generation, first click in the centre, Python {sys.version.split()[0]}")
    results = [measure(*size, args.seeds, args.budget) for size in SIZES]
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
        print(f"Wrote {args.json}")
    missed = [r for r in results if r.name in TARGET_MS and r.median_ms >= TARGET_MS[r.name]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
