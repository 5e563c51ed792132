"""Mine placement at the first reveal, from an injected random source (replayable from a seed)."""

import random

from .grid import Grid


def place_mines(
    grid: Grid, count: int, start: int, rng: random.Random, *, no_guess: bool = False
) -> frozenset[int]:
    """Mines anywhere but the first revealed cell and its neighbours: the first reveal opens up.

    `random.Random.sample` over a sorted candidate list is stable across platforms for a given seed.
    """
    if no_guess:
        from .noguess import generate_no_guess

        return generate_no_guess(grid, count, start, rng)
    safe = grid.opening(start)
    candidates = [cell for cell in range(grid.size) if cell not in safe]
    return frozenset(rng.sample(candidates, count))
