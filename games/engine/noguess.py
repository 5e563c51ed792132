"""No-guess boards: layouts a player can finish from the first click by reasoning alone.

The design is Simon Tatham's (`mines.c`, `minegen`/`mineperturb`): place mines at random, let
the solver play from the first click, and when it gets stuck, perturb instead of starting over:
pick one stuck constraint and either empty it (move its mines to other unknown cells) or fill it
(pull mines in from other unknown cells). The mine count and everything the solver already knows
stay as they were, so it carries on from where it stopped. When a run ends solved, the layout is
solved again from scratch, and it is accepted only once a run needs no perturbation at all: that
run is exactly `is_solvable`. A fresh layout is drawn when perturbing stops helping, and a total
budget of attempts bounds the work for any density.
"""

import itertools
import random
from collections.abc import Iterator

from .errors import GenerationError, InvalidBoardError, OutOfBoundsError
from .grid import Grid
from .solver import Solver


def _perturbation_limit(grid: Grid) -> int:
    """Perturbations allowed in one solving run before drawing a new layout.

    Past this a run is usually cycling. Big boards get stuck more often on the way, so the
    limit grows with the area (a quarter of the cells, at least 100).
    """
    return max(100, grid.size // 4)


def generate_no_guess(
    grid: Grid,
    mine_count: int,
    start: int,
    rng: random.Random,
    *,
    max_attempts: int = 2000,
) -> frozenset[int]:
    """`mine_count` mines, none in the opening around `start`, solvable by logic from `start`.

    All randomness comes from `rng`, so a seed reproduces the board. Raises GenerationError when
    no board turns up within `max_attempts` layouts and perturbations together.
    """
    opening = _checked_opening(grid, mine_count, start, max_attempts)
    budget = _Budget(max_attempts)
    while budget.left():
        layout = _Layout(grid, _random_mines(grid, mine_count, opening, rng))
        if _shape(layout, start, rng, budget):
            return frozenset(layout.mines)
    raise GenerationError(
        f"no board solvable without guessing found for {mine_count} mines on "
        f"{grid.width}x{grid.height} in {max_attempts} attempts: the density "
        f"({mine_count / grid.size:.0%}) is too high for a no-guess board of this shape; "
        "try fewer mines"
    )


class _Layout:
    """The mines being shaped and their neighbour counts, which the solver reads as it reveals."""

    __slots__ = ("grid", "mines", "counts")

    def __init__(self, grid: Grid, mines: set[int]) -> None:
        self.grid = grid
        self.mines = mines
        self.counts = bytearray(grid.size)
        for mine in mines:
            for neighbour in grid.neighbours(mine):
                self.counts[neighbour] += 1

    def move(self, cell: int, delta: int) -> None:
        """Add (+1) or remove (-1) the mine at `cell`."""
        if delta > 0:
            self.mines.add(cell)
        else:
            self.mines.remove(cell)
        for neighbour in self.grid.neighbours(cell):
            self.counts[neighbour] += delta


class _Budget:
    """Attempts left: each solving run and each perturbation costs one."""

    __slots__ = ("remaining",)

    def __init__(self, attempts: int) -> None:
        self.remaining = attempts

    def left(self) -> bool:
        return self.remaining > 0

    def spend(self) -> None:
        self.remaining -= 1


def _shape(layout: _Layout, start: int, rng: random.Random, budget: _Budget) -> bool:
    """Perturb `layout` until a run from scratch solves it untouched (Tatham's `minegen`).

    A perturbed run shows the new layout is nearly solvable, not that it is: a perturbation
    that changed a known cell can undo the reasoning that found it. So solve again from the
    start; give up on the layout when a run needs no fewer perturbations than the one before.
    """
    limit = _perturbation_limit(layout.grid)
    previous = limit + 1
    while budget.left():
        solved, perturbations = _solve(layout, start, rng, budget, limit)
        if not solved or perturbations >= previous:
            return False
        if perturbations == 0:
            return True
        previous = perturbations
    return False


def _solve(
    layout: _Layout, start: int, rng: random.Random, budget: _Budget, limit: int
) -> tuple[bool, int]:
    """Play from `start`, perturbing whenever stuck: (solved, perturbations made)."""
    solver = Solver(layout.grid, len(layout.mines), layout.counts)
    solver.reveal(start)
    budget.spend()
    perturbations = 0
    while True:
        solver.run()
        if solver.solved():
            return True, perturbations
        if perturbations >= limit or not budget.left():
            return False, perturbations
        changes = _perturbation(layout, solver, rng)
        if not changes:
            return False, perturbations
        budget.spend()
        perturbations += 1
        for cell, delta in changes:
            layout.move(cell, delta)
        solver.shift(changes)


def _perturbation(layout: _Layout, solver: Solver, rng: random.Random) -> list[tuple[int, int]]:
    """Changes that empty or fill one stuck constraint, trading mines with unknown cells.

    Trading only unknown cells leaves everything the solver proved in place. When neither trade
    is possible (very dense boards) it fills what it can.
    """
    if not solver.constraints:
        return _open_wall(layout, solver, rng)
    target = rng.choice(tuple(solver.constraints))
    full = [cell for cell in target if cell in layout.mines]
    empty = [cell for cell in target if cell not in layout.mines]
    donors, receivers = _trade_partners(layout, solver, target, len(empty), len(full), rng)
    can_empty = len(receivers) == len(full)
    can_fill = len(donors) == len(empty)
    if can_empty and not (can_fill and rng.random() < 0.5):
        return [(cell, -1) for cell in full] + [(cell, 1) for cell in receivers]
    filled = empty if can_fill else rng.sample(empty, len(donors))
    return [(cell, 1) for cell in filled] + [(cell, -1) for cell in donors]


def _open_wall(layout: _Layout, solver: Solver, rng: random.Random) -> list[tuple[int, int]]:
    """Stuck behind a wall of proven mines, with no clue touching the cells beyond it.

    Dense boards end up here often. Move one wall mine into the unknown region: the cell
    it leaves becomes a number that sees past the wall (Tatham's last resort of changing known
    cells; `_shape` re-solves from scratch because of it).
    """
    wall = sorted(
        mine
        for mine in solver.mines
        if any(neighbour in solver.unknown for neighbour in solver.neighbours[mine])
    )
    spaces = [cell for cell in solver.unknown if cell not in layout.mines]
    if not wall or not spaces:
        return []
    return [(rng.choice(wall), -1), (rng.choice(spaces), 1)]


def _trade_partners(
    layout: _Layout,
    solver: Solver,
    target: frozenset[int],
    mines_wanted: int,
    spaces_wanted: int,
    rng: random.Random,
) -> tuple[list[int], list[int]]:
    """Unknown cells outside `target`: up to `mines_wanted` mines and `spaces_wanted` free cells.

    Frontier cells come first, as in Tatham's generator: a change there is seen at once by the
    constraints that hold it, rather than seeding a new problem in unexplored territory.
    """
    frontier: list[int] = []
    beyond: list[int] = []
    for cell in solver.unknown:
        if cell not in target:
            (frontier if solver.by_cell.get(cell) else beyond).append(cell)
    mines: list[int] = []
    spaces: list[int] = []
    for cell in itertools.chain(_shuffled(frontier, rng), _shuffled(beyond, rng)):
        if cell in layout.mines:
            if len(mines) < mines_wanted:
                mines.append(cell)
        elif len(spaces) < spaces_wanted:
            spaces.append(cell)
        if len(mines) == mines_wanted and len(spaces) == spaces_wanted:
            break
    return mines, spaces


def _shuffled(cells: list[int], rng: random.Random) -> Iterator[int]:
    """`cells` in random order, drawn lazily: usually only a handful are needed (Fisher-Yates)."""
    for end in range(len(cells) - 1, -1, -1):
        pick = rng.randint(0, end)
        cells[pick], cells[end] = cells[end], cells[pick]
        yield cells[end]


def _random_mines(
    grid: Grid, mine_count: int, opening: frozenset[int], rng: random.Random
) -> set[int]:
    candidates = [cell for cell in range(grid.size) if cell not in opening]
    return set(rng.sample(candidates, mine_count))


def _checked_opening(grid: Grid, mine_count: int, start: int, max_attempts: int) -> frozenset[int]:
    """The first click's opening, after refusing requests that can never succeed."""
    if not 0 <= start < grid.size:
        raise OutOfBoundsError(f"start cell {start!r} is off the board: must be 0..{grid.size - 1}")
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts!r}")
    if mine_count < 0:
        raise InvalidBoardError(f"mine count must not be negative, got {mine_count!r}")
    opening = grid.opening(start)
    room = grid.size - len(opening)
    if mine_count > room:
        raise GenerationError(
            f"{mine_count} mines do not fit on {grid.width}x{grid.height}: at most {room} fit "
            "outside the first click's opening; try fewer mines"
        )
    return opening
