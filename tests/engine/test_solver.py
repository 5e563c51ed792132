"""The solver proves cells safe or mined from public clues only, and never claims too much."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.errors import InvalidBoardError, OutOfBoundsError
from games.engine.grid import Grid, mine_counts
from games.engine.solver import Deduction, deduce, hint, is_solvable


def position(text: str) -> tuple[Grid, dict[int, int], frozenset[int]]:
    """A position in play, in the ASCII form: `#` hidden, `F` proven mine, `_`/`1`-`8` revealed."""
    rows = text.split()
    grid = Grid(len(rows[0]), len(rows))
    clues: dict[int, int] = {}
    known: set[int] = set()
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            cell = grid.index(x, y)
            if char == "F":
                known.add(cell)
            elif char == "_":
                clues[cell] = 0
            elif char.isdigit():
                clues[cell] = int(char)
    return grid, clues, frozenset(known)


def layout(text: str) -> tuple[Grid, frozenset[int]]:
    """A mine layout: `*` mine, `.` safe."""
    rows = text.split()
    grid = Grid(len(rows[0]), len(rows))
    mines = {grid.index(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "*"}
    return grid, frozenset(mines)


def cells(grid: Grid, *points: tuple[int, int]) -> frozenset[int]:
    return frozenset(grid.index(x, y) for x, y in points)


def solve(text: str, total_mines: int | None = None) -> tuple[Grid, Deduction]:
    grid, clues, known = position(text)
    return grid, deduce(grid, clues, known, total_mines)


def test_zero_proves_every_hidden_neighbour_safe() -> None:
    grid, result = solve("### #_# ###")
    assert result.safe == frozenset(range(9)) - {grid.index(1, 1)}
    assert result.mines == frozenset()


def test_clue_with_as_many_hidden_neighbours_as_mines_proves_them_mines() -> None:
    grid, result = solve("#2#")
    assert result.mines == cells(grid, (0, 0), (2, 0))
    assert result.safe == frozenset()


def test_proven_mines_count_towards_a_clue() -> None:
    grid, result = solve("F1#")
    assert result.safe == cells(grid, (2, 0))
    assert result.mines == frozenset()


def test_one_two_one_proves_the_ends_mines_and_the_middle_safe() -> None:
    grid, result = solve("### 121")
    assert result.mines == cells(grid, (0, 0), (2, 0))
    assert result.safe == cells(grid, (1, 0))


def test_clue_inside_a_bigger_clue_clears_the_rest_of_the_bigger_one() -> None:
    grid, result = solve("### 11#")
    assert result.safe == cells(grid, (2, 0), (2, 1))
    assert result.mines == frozenset()


def test_overlapping_clues_settle_both_sides_without_a_subset() -> None:
    # 3 with one proven mine leaves 2 among three cells; the 1 shares two of them, so the
    # cell only the 3 sees is a mine and the cells only the 1 sees are safe.
    grid, result = solve("#### F31#")
    assert result.mines == cells(grid, (0, 0))
    assert result.safe == cells(grid, (3, 0), (3, 1))


def test_local_fifty_fifty_proves_nothing_without_the_mine_count() -> None:
    _, result = solve("#1#F#")
    assert result == Deduction(safe=frozenset(), mines=frozenset())


def test_mine_count_clears_cells_outside_a_settled_pair() -> None:
    grid, result = solve("#1#F#", total_mines=2)
    assert result.safe == cells(grid, (4, 0))
    assert result.mines == frozenset()


def test_mine_count_fills_cells_outside_a_settled_pair() -> None:
    grid, result = solve("#1#F#", total_mines=3)
    assert result.mines == cells(grid, (4, 0))
    assert result.safe == frozenset()


def test_no_mines_left_proves_every_hidden_cell_safe() -> None:
    grid, result = solve("F# ##", total_mines=1)
    assert result.safe == cells(grid, (1, 0), (0, 1), (1, 1))


def test_as_many_mines_as_hidden_cells_proves_them_all_mines() -> None:
    grid, result = solve("### ###", total_mines=6)
    assert result.mines == frozenset(range(6))


def test_clues_no_layout_fits_are_refused() -> None:
    grid, clues, known = position("#1 #_")
    with pytest.raises(InvalidBoardError, match="contradict"):
        deduce(grid, clues, known)


def test_mine_count_no_layout_fits_is_refused() -> None:
    grid, clues, known = position("#1#")
    with pytest.raises(InvalidBoardError, match="contradict"):
        deduce(grid, clues, known, total_mines=5)


def test_cell_both_revealed_and_a_known_mine_is_refused() -> None:
    grid = Grid(3, 1)
    with pytest.raises(InvalidBoardError, match="both revealed and known mines"):
        deduce(grid, {1: 0}, frozenset({1}))


def test_clue_off_the_board_is_refused() -> None:
    with pytest.raises(OutOfBoundsError):
        deduce(Grid(3, 1), {7: 1}, frozenset())


def test_hint_names_the_lowest_proven_safe_cell() -> None:
    grid, clues, known = position("### 11#")
    assert hint(grid, clues, known, None) == grid.index(2, 0)


def test_hint_is_none_when_every_hidden_cell_is_a_guess() -> None:
    grid, clues, known = position("#1#")
    assert hint(grid, clues, known, 1) is None


def test_board_without_mines_is_solvable() -> None:
    grid = Grid(5, 4)
    assert is_solvable(grid, frozenset(), 0)


def test_corner_fifty_fifty_is_not_solvable() -> None:
    grid, mines = layout("*.. ...")
    assert not is_solvable(grid, mines, grid.index(2, 1))


def test_mine_count_finishes_a_board_walled_off_by_mines() -> None:
    grid, mines = layout("..*..")
    assert is_solvable(grid, mines, 0)


def test_walled_off_cells_with_an_unknown_split_are_not_solvable() -> None:
    grid, mines = layout("..**.")
    assert not is_solvable(grid, mines, 0)


def test_opening_on_a_mine_is_not_solvable() -> None:
    grid, mines = layout("*..")
    assert not is_solvable(grid, mines, 0)


def test_huge_empty_board_floods_without_recursion() -> None:
    grid = Grid(200, 200)
    assert is_solvable(grid, frozenset({grid.size - 1}), 0)


@st.composite
def positions(draw: st.DrawFn, max_side: int = 8) -> tuple:
    """A random board, a random set of revealed safe cells and a random set of proven mines."""
    grid = Grid(draw(st.integers(1, max_side)), draw(st.integers(1, max_side)))
    mines = frozenset(draw(st.sets(st.integers(0, grid.size - 1), max_size=grid.size)))
    safe = [cell for cell in range(grid.size) if cell not in mines]
    revealed = draw(st.sets(st.sampled_from(safe), max_size=len(safe))) if safe else set()
    known = draw(st.sets(st.sampled_from(sorted(mines)), max_size=len(mines))) if mines else set()
    counts = mine_counts(grid, mines)
    clues = {cell: counts[cell] for cell in revealed}
    total = draw(st.sampled_from([None, len(mines)]))
    return grid, mines, clues, frozenset(known), total


@settings(max_examples=300, deadline=None)
@given(positions())
def test_deduce_never_contradicts_the_actual_layout(position: tuple) -> None:
    grid, mines, clues, known, total = position
    result = deduce(grid, clues, known, total)
    assert not result.safe & mines
    assert result.mines <= mines
    assert not (result.safe | result.mines) & (set(clues) | known)


def consistent_layouts(grid: Grid, clues: dict[int, int], known: frozenset[int], total: int | None):
    hidden = [cell for cell in range(grid.size) if cell not in clues and cell not in known]
    for bits in itertools.product((False, True), repeat=len(hidden)):
        mines = known | {cell for cell, bit in zip(hidden, bits, strict=True) if bit}
        if total is not None and len(mines) != total:
            continue
        if all(sum(n in mines for n in grid.neighbours(c)) == v for c, v in clues.items()):
            yield mines


@settings(max_examples=150, deadline=None)
@given(positions(max_side=4).filter(lambda p: p[0].size - len(p[2]) - len(p[3]) <= 10))
def test_every_deduced_cell_is_forced_in_every_layout_that_fits_the_clues(position: tuple) -> None:
    grid, _, clues, known, total = position
    result = deduce(grid, clues, known, total)
    for mines in consistent_layouts(grid, clues, known, total):
        assert not result.safe & mines
        assert result.mines <= mines


@settings(max_examples=100, deadline=None)
@given(positions())
def test_hint_is_a_hidden_cell_without_a_mine(position: tuple) -> None:
    grid, mines, clues, known, total = position
    cell = hint(grid, clues, known, total)
    assert cell is None or (cell not in mines and cell not in clues)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(2, 10), st.data())
def test_solvable_board_is_won_by_playing_only_deductions(width: int, height: int, data) -> None:
    grid = Grid(width, height)
    start = data.draw(st.integers(0, grid.size - 1))
    pool = sorted(set(range(grid.size)) - grid.opening(start))
    mines = frozenset(data.draw(st.sets(st.sampled_from(pool), max_size=len(pool))) if pool else ())
    if not is_solvable(grid, mines, start):
        return
    # Replaying the game through the public `deduce` reaches the same end: every safe cell.
    counts = mine_counts(grid, mines)
    clues = {start: counts[start]}
    known: frozenset[int] = frozenset()
    while len(clues) < grid.size - len(mines):
        result = deduce(grid, clues, known, len(mines))
        assert result.safe
        clues |= {cell: counts[cell] for cell in result.safe}
        known |= result.mines
