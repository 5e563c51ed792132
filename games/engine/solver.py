"""A logic-only solver: what the revealed numbers prove about hidden cells, and nothing more.

Two callers need it. The no-guess generator must know that a board can be finished by reasoning
alone, and the Hint button must name a cell that is provably safe. Both are useless (or unfair)
if the solver ever guesses, so every rule here is sound: a cell is called safe (or a mine) only
when it is safe (or a mine) in every mine layout that fits the clues. Completeness is partial:
some boards a patient human could finish are reported as stuck.

The reasoning follows Simon Tatham's `mines.c`: each revealed number gives a constraint "exactly
m mines among these hidden cells"; pairs of overlapping constraints give new ones; when that runs
dry the total mine count is tried. Only frontier cells (hidden, next to a revealed number) ever
appear in a constraint, and constraints are indexed by cell, so work follows the frontier.
"""

import functools
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .errors import InvalidBoardError, OutOfBoundsError
from .grid import Grid, mine_counts

Cells = frozenset[int]


@dataclass(frozen=True, slots=True)
class Deduction:
    """Hidden cells the clues prove safe or mined, beyond those the caller already knew."""

    safe: frozenset[int]
    mines: frozenset[int]


def deduce(
    grid: Grid,
    clues: Mapping[int, int],
    known_mines: frozenset[int],
    total_mines: int | None = None,
) -> Deduction:
    """Everything the single-clue, pair and mine-count rules prove, applied to a fixed point.

    `known_mines` must hold facts (cells already proven to be mines), never a player's flags:
    a wrong flag would make the proof wrong. `frozenset()` is always safe to pass.
    """
    _check_position(grid, clues, known_mines)
    solver = Solver(grid, total_mines)
    solver.load(clues, known_mines)
    solver.run()
    return Deduction(
        safe=frozenset(solver.safe.difference(clues)),
        mines=frozenset(solver.mines - known_mines),
    )


def hint(
    grid: Grid,
    clues: Mapping[int, int],
    known_mines: frozenset[int],
    total_mines: int | None = None,
) -> int | None:
    """The lowest-numbered hidden cell the public clues prove safe, or None if none is proven.

    It takes only what every player can see (never the mine layout), so a hint can't leak it.
    """
    safe = deduce(grid, clues, known_mines, total_mines).safe
    return min(safe) if safe else None


def is_solvable(grid: Grid, mines: frozenset[int], start: int) -> bool:
    """Whether a player opening `start` can reveal every safe cell without guessing.

    The simulated player knows the total mine count, reveals each cell as soon as it is proven
    safe (a zero floods its neighbours through the solver's queue) and never guesses.
    """
    _check_cell(grid, start)
    if start in mines:
        return False
    solver = Solver(grid, len(mines), mine_counts(grid, mines))
    solver.reveal(start)
    solver.run()
    return solver.solved()


class Solver:
    """Working state of one solving run, shared by `deduce`, `is_solvable` and the generator.

    Mutable on purpose and kept inside the engine: rebuilding frozen values after every step
    would make solving quadratic in the frontier. Invariants: every stored constraint holds only
    unknown cells and 0 < mines < size; every fact learned is true of the actual layout.
    With `counts` (the board's neighbour counts, which the generator may change between runs)
    the solver plays: each cell proven safe is revealed and its number becomes a new
    constraint. Without it, it only deduces.
    """

    __slots__ = (
        "grid",
        "total",
        "counts",
        "neighbours",
        "unknown",
        "safe",
        "mines",
        "constraints",
        "by_cell",
        "todo",
        "queued",
        "pending",
    )

    def __init__(self, grid: Grid, total: int | None, counts: Sequence[int] | None = None) -> None:
        self.grid = grid
        self.total = total
        self.counts = counts
        self.neighbours = _neighbour_table(grid)
        self.unknown: set[int] = set(range(grid.size))
        self.safe: set[int] = set()
        self.mines: set[int] = set()
        self.constraints: dict[Cells, int] = {}
        self.by_cell: dict[int, set[Cells]] = {}
        self.todo: deque[Cells] = deque()
        self.queued: set[Cells] = set()
        self.pending: deque[tuple[int, bool]] = deque()

    def load(self, clues: Mapping[int, int], known_mines: frozenset[int]) -> None:
        """Start from a position in play: revealed numbers and proven mines."""
        self.unknown.difference_update(clues, known_mines)
        self.safe.update(clues)
        self.mines.update(known_mines)
        for cell, number in clues.items():
            self.add_clue(cell, number)

    def reveal(self, cell: int) -> None:
        """Open a cell the caller knows is safe (the first click)."""
        self.pending.append((cell, False))

    def solved(self) -> bool:
        """Every safe cell is known (needs the total mine count)."""
        return self.total is not None and len(self.safe) == self.grid.size - self.total

    def run(self) -> None:
        """Apply the rules until none of them proves anything new."""
        while True:
            if self.pending:
                self._settle(*self.pending.popleft())
            elif self.todo:
                key = self.todo.popleft()
                self.queued.discard(key)
                self._examine(key)
            elif not self._use_mine_count():
                return

    def add_clue(self, cell: int, number: int) -> None:
        """A revealed number: its hidden neighbours hold its mines not already proven."""
        hidden = []
        proven = 0
        for neighbour in self.neighbours[cell]:
            if neighbour in self.unknown:
                hidden.append(neighbour)
            elif neighbour in self.mines:
                proven += 1
        self._learn(frozenset(hidden), number - proven)

    def shift(self, changes: Sequence[tuple[int, int]]) -> None:
        """The generator moved mines into (+1) or out of (-1) these cells.

        Every stored constraint is an exact count over unknown cells, so adding the net change
        of its cells keeps it true of the new layout (Tatham's perturbation update). Net, not
        one by one: a constraint that loses a mine and gains another must not pass through a
        state that would settle its cells wrongly. A known cell that changes simply becomes
        known the other way; no stored constraint holds it.
        """
        deltas: dict[Cells, int] = {}
        for cell, delta in changes:
            for key in self.by_cell.get(cell, ()):
                deltas[key] = deltas.get(key, 0) + delta
        for key, delta in deltas.items():
            self._learn(key, self._forget(key) + delta)
        for cell, delta in changes:
            if cell not in self.unknown:
                self._flip(cell, delta > 0)

    def _flip(self, cell: int, to_mine: bool) -> None:
        """A known cell changed between safe and mine.

        Stored constraints stay true: they hold only unknown cells, and each neighbouring number
        changed by exactly as much as the proven mines around it.
        """
        if to_mine:
            self.safe.remove(cell)
            self.mines.add(cell)
        else:
            self.mines.remove(cell)
            self.safe.add(cell)
            if self.counts is not None:
                self.add_clue(cell, self.counts[cell])

    def _learn(self, cells: Cells, count: int) -> None:
        """Record the fact "exactly `count` mines in `cells`", first dropping settled cells."""
        if not cells <= self.unknown:
            count -= len(cells & self.mines)
            cells = cells & self.unknown
        if not 0 <= count <= len(cells):
            raise _contradiction()
        if count == 0 or count == len(cells):
            self.pending.extend((cell, count > 0) for cell in cells)
        elif cells not in self.constraints:
            self._store(cells, count)
        elif self.constraints[cells] != count:
            raise _contradiction()

    def _store(self, cells: Cells, count: int) -> None:
        self.constraints[cells] = count
        for cell in cells:
            keys = self.by_cell.get(cell)
            if keys is None:
                self.by_cell[cell] = {cells}
            else:
                keys.add(cells)
        if cells not in self.queued:
            self.queued.add(cells)
            self.todo.append(cells)

    def _forget(self, cells: Cells) -> int:
        for cell in cells:
            keys = self.by_cell.get(cell)
            if keys is not None:
                keys.discard(cells)
        return self.constraints.pop(cells)

    def _settle(self, cell: int, is_mine: bool) -> None:
        """Make a proven cell known and shrink every constraint that held it."""
        if cell not in self.unknown:
            if (cell in self.mines) != is_mine:
                raise _contradiction()
            return
        self.unknown.remove(cell)
        (self.mines if is_mine else self.safe).add(cell)
        for key in tuple(self.by_cell.pop(cell, ())):
            self._learn(key - {cell}, self._forget(key) - int(is_mine))
        if not is_mine and self.counts is not None:
            self.add_clue(cell, self.counts[cell])

    def _examine(self, key: Cells) -> None:
        """Compare one constraint with every constraint it overlaps."""
        count = self.constraints.get(key)
        if count is None:
            return
        partners: set[Cells] = set()
        for cell in key:
            partners.update(self.by_cell[cell])
        partners.discard(key)
        facts: list[tuple[Cells, int]] = []
        for other in partners:
            facts.extend(_pair_facts(key, count, other, self.constraints[other]))
        for cells, mines in facts:
            self._learn(cells, mines)

    def _use_mine_count(self) -> bool:
        """Try the total mine count; True if it proved something.

        Constraints with no cell in common hold exactly the sum of their counts, so the cells
        outside such a packing hold exactly what is left; if that is none or all of them, they
        are settled. The empty packing is the plain rule (no mines left, or only mines left).
        """
        if self.total is None or not self.unknown:
            return False
        left = self.total - len(self.mines)
        if not 0 <= left <= len(self.unknown):
            raise _contradiction()
        for covered, packed in self._packings():
            outside = len(self.unknown) - len(covered)
            rest = left - packed
            if outside and (rest == 0 or rest == outside):
                self.pending.extend((c, rest > 0) for c in self.unknown if c not in covered)
                return True
        return False

    def _packings(self) -> Iterator[tuple[set[int], int]]:
        """The empty packing, then two greedy ones: most mines, and most safe cells.

        Finding the best packing is NP-hard; two greedy orders catch the endgame cases
        (a 50/50 elsewhere fixing a count) at the cost of one sort each.
        """
        yield set(), 0
        items = list(self.constraints.items())
        for order in (lambda item: -item[1], lambda item: item[1] - len(item[0])):
            covered: set[int] = set()
            packed = 0
            for cells, count in sorted(items, key=order):
                if covered.isdisjoint(cells):
                    covered.update(cells)
                    packed += count
            yield covered, packed


def _pair_facts(a: Cells, mines_a: int, b: Cells, mines_b: int) -> list[tuple[Cells, int]]:
    """What two overlapping constraints prove about their shared and unshared cells.

    The shared cells hold between `low` and `high` mines; each side's own cells hold its count
    minus that. When the bounds meet (always so when one set contains the other: the subset
    rule), every part gets an exact count; otherwise a side is settled only when its bound
    forces all-safe or all-mine (the "1-2" pattern).
    """
    shared = a & b
    only_a = a - shared
    only_b = b - shared
    low = max(0, mines_a - len(only_a), mines_b - len(only_b))
    high = min(len(shared), mines_a, mines_b)
    if low > high:
        raise _contradiction()
    facts = []
    for own, mines in ((only_a, mines_a), (only_b, mines_b)):
        if not own:
            continue
        if low == high:
            facts.append((own, mines - low))
        elif mines - low == 0:
            facts.append((own, 0))
        elif mines - high == len(own):
            facts.append((own, len(own)))
    if low == high and only_a and only_b:
        facts.append((shared, low))
    return facts


@functools.lru_cache(maxsize=32)
def _neighbour_table(grid: Grid) -> tuple[tuple[int, ...], ...]:
    """Neighbours of every cell, once per board shape: the solver asks for them constantly."""
    return tuple(tuple(grid.neighbours(cell)) for cell in range(grid.size))


def _contradiction() -> InvalidBoardError:
    return InvalidBoardError("the clues contradict each other: no mine layout fits them")


def _check_cell(grid: Grid, cell: int) -> None:
    if not 0 <= cell < grid.size:
        raise OutOfBoundsError(f"cell {cell!r} is off the board: must be 0..{grid.size - 1}")


def _check_position(grid: Grid, clues: Mapping[int, int], known_mines: frozenset[int]) -> None:
    """Reject positions no game could reach, so the solver's facts start out true."""
    for cell, number in clues.items():
        _check_cell(grid, cell)
        if not 0 <= number <= len(grid.neighbours(cell)):
            raise InvalidBoardError(f"clue {number!r} at cell {cell} is not a possible count")
    for cell in known_mines:
        _check_cell(grid, cell)
    both = known_mines.intersection(clues)
    if both:
        raise InvalidBoardError(f"cells {sorted(both)} are both revealed and known mines")
