"""Engine benchmark: replay positions of an expert game (issue 16).

    python -m bench.engine_replay [--moves 500] [--positions 2000] [--seed 1]

Plays a 30x16 game with 99 mines to about `--moves` accepted moves, by four seats: reveals of
safe cells (the bench peeks at the mines so the game lasts), flags and unflags, and chords. A
game that is won too early is played again from the next seed. Then times building the replay
(`games.engine.stats.replay`) and `position(k)` for random k, and prints median and p95 in ms.
"""

import argparse
import random
import statistics
import time
from collections import Counter

from games.engine.minesweeper import EXPERT, Action, GameState, Move, apply_move, new_game
from games.engine.stats import LoggedMove, replay

BUILD_REPEATS = 20
TARGET_MS = 50.0
"""The issue's figure for any position of such a game; under 5 ms is the hope once built."""


def play(seed: int, target: int) -> list[LoggedMove]:
    """A game of at least `target` accepted moves (or fewer if it is won first)."""
    rng = random.Random(seed)
    state = new_game(EXPERT, seed)
    moves: list[LoggedMove] = []
    while not state.is_over and len(moves) < target:
        move = next_move(state, rng, finish=len(moves) >= target - 1)
        state, events = apply_move(state, move)
        if events:
            moves.append(LoggedMove(move.player, move.action, move.x, move.y, 400 * len(moves)))
    return moves


def next_move(state: GameState, rng: random.Random, *, finish: bool) -> Move:
    grid, seat = state.grid, rng.randrange(4)
    if state.field is None:
        return Move(Action.REVEAL, *grid.xy(rng.randrange(grid.size)), seat)
    mines = state.field.mines
    hidden = [c for c in range(grid.size) if c not in state.revealed]
    safe = [c for c in hidden if c not in mines and c not in state.flags]
    roll = rng.random()
    if safe and (finish or (roll < 0.35 and len(safe) > 1)):
        return Move(Action.REVEAL, *grid.xy(rng.choice(safe)), seat)
    wrong = [c for c in state.flags if c not in mines]
    if wrong and (roll < 0.6 or not safe):
        return Move(Action.FLAG, *grid.xy(rng.choice(wrong)), seat)  # unflag
    chords = [c for c in state.revealed if all(n in state.flags for n in mines_near(state, c))]
    if chords and roll < 0.7:
        return Move(Action.CHORD, *grid.xy(rng.choice(chords)), seat)
    return Move(Action.FLAG, *grid.xy(rng.choice(hidden)), seat)


def mines_near(state: GameState, cell: int) -> list[int]:
    assert state.field is not None
    return [n for n in state.grid.neighbours(cell) if n in state.field.mines]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=500)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    seed = args.seed
    moves = play(seed, args.moves)
    while len(moves) < args.moves:
        seed += 1
        moves = play(seed, args.moves)
    builds = []
    for _ in range(BUILD_REPEATS):
        started = time.perf_counter()
        played = replay(EXPERT, seed, moves)
        builds.append((time.perf_counter() - started) * 1000)
    rng = random.Random(0)
    positions = []
    for _ in range(args.positions):
        k = rng.randrange(played.moves + 1)
        started = time.perf_counter()
        played.position(k)
        positions.append((time.perf_counter() - started) * 1000)
    mix = Counter(Action(move.action).value for move in moves)
    print(f"30x16/99, seed {seed}: {played.moves} moves ({dict(mix)}), {played.status.value}")
    for name, values in (("replay(...) build", builds), ("position(k)", positions)):
        median, p95 = statistics.median(values), percentile(values, 0.95)
        print(f"{name:>18}: median {median:.3f} ms, p95 {p95:.3f} ms ({len(values)} runs)")
    print(f"target: any position under {TARGET_MS:.0f} ms")


if __name__ == "__main__":
    main()
