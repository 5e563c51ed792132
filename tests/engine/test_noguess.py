"""No-guess generation: right count, clear opening, solvable by logic, reproducible, bounded."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.errors import GenerationError, InvalidBoardError, OutOfBoundsError
from games.engine.grid import Grid, mine_counts
from games.engine.noguess import generate_no_guess
from games.engine.solver import deduce, is_solvable

EXPERT = Grid(30, 16)
EXPERT_START = EXPERT.index(15, 8)


@st.composite
def requests(draw: st.DrawFn, min_side: int = 3, max_side: int = 12) -> tuple[Grid, int, int, int]:
    """A board shape, a first click, a mine count that fits around it, and a seed.

    Boards at least 3 wide and high have a no-guess layout for every count that fits (checked
    exhaustively up to 6x6, and by generation up to 12x12); narrower ones sometimes do not.
    """
    grid = Grid(draw(st.integers(min_side, max_side)), draw(st.integers(min_side, max_side)))
    start = draw(st.integers(0, grid.size - 1))
    room = grid.size - len(grid.opening(start))
    return grid, start, draw(st.integers(0, room)), draw(st.integers(0, 2**32))


@settings(max_examples=60, deadline=None)
@given(requests())
def test_board_has_the_count_a_clear_opening_and_needs_no_guess(request: tuple) -> None:
    grid, start, mine_count, seed = request
    mines = generate_no_guess(grid, mine_count, start, random.Random(seed))
    assert len(mines) == mine_count
    assert all(0 <= mine < grid.size for mine in mines)
    assert not mines & grid.opening(start)
    assert is_solvable(grid, mines, start)


@settings(max_examples=40, deadline=None)
@given(requests(min_side=1, max_side=4))
def test_narrow_board_fails_exactly_when_no_layout_is_solvable(request: tuple) -> None:
    grid, start, mine_count, seed = request
    pool = sorted(set(range(grid.size)) - grid.opening(start))
    exists = any(
        is_solvable(grid, frozenset(mines), start)
        for mines in itertools.combinations(pool, mine_count)
    )
    try:
        mines = generate_no_guess(grid, mine_count, start, random.Random(seed))
    except GenerationError:
        assert not exists
    else:
        assert len(mines) == mine_count and is_solvable(grid, mines, start)


def test_corridor_with_a_blind_pair_fails_with_advice() -> None:
    # 2x3, first click in a corner: the far row is two cells no clue tells apart.
    with pytest.raises(GenerationError, match="fewer mines"):
        generate_no_guess(Grid(2, 3), 1, 0, random.Random(0))


@settings(max_examples=20, deadline=None)
@given(requests())
def test_same_seed_gives_the_same_board(request: tuple) -> None:
    grid, start, mine_count, seed = request
    first = generate_no_guess(grid, mine_count, start, random.Random(seed))
    assert generate_no_guess(grid, mine_count, start, random.Random(seed)) == first


def test_expert_boards_are_solvable_and_differ_by_seed() -> None:
    boards = [generate_no_guess(EXPERT, 99, EXPERT_START, random.Random(seed)) for seed in range(3)]
    assert all(len(mines) == 99 and is_solvable(EXPERT, mines, EXPERT_START) for mines in boards)
    assert len(set(boards)) == 3


def test_hints_alone_walk_a_player_through_a_no_guess_board() -> None:
    mines = generate_no_guess(EXPERT, 99, EXPERT_START, random.Random(7))
    counts = mine_counts(EXPERT, mines)
    clues = {EXPERT_START: counts[EXPERT_START]}
    known: frozenset[int] = frozenset()
    while len(clues) < EXPERT.size - len(mines):
        result = deduce(EXPERT, clues, known, len(mines))
        assert result.safe
        clues |= {cell: counts[cell] for cell in result.safe}
        known |= result.mines


def test_generation_leaves_the_global_random_generator_alone() -> None:
    before = random.getstate()
    generate_no_guess(EXPERT, 99, EXPERT_START, random.Random(1))
    assert random.getstate() == before


def test_densest_boards_that_fit_still_come_out_solvable() -> None:
    # 471 is every cell outside the opening; 470 leaves one safe cell for logic to find.
    for mine_count in (470, 471):
        mines = generate_no_guess(EXPERT, mine_count, EXPERT_START, random.Random(0))
        assert len(mines) == mine_count and is_solvable(EXPERT, mines, EXPERT_START)


def test_more_mines_than_fit_outside_the_opening_fail_at_once() -> None:
    with pytest.raises(GenerationError, match="at most 471 fit.*fewer mines"):
        generate_no_guess(EXPERT, 472, EXPERT_START, random.Random(0))


def test_exhausted_attempts_say_the_density_is_too_high() -> None:
    # A random 42% board is never solvable as drawn, and one attempt allows no perturbation.
    with pytest.raises(GenerationError, match=r"density \(42%\) is too high.*fewer mines"):
        generate_no_guess(EXPERT, 200, EXPERT_START, random.Random(0), max_attempts=1)


def test_negative_mine_count_is_refused() -> None:
    with pytest.raises(InvalidBoardError, match="-1"):
        generate_no_guess(EXPERT, -1, EXPERT_START, random.Random(0))


def test_first_click_off_the_board_is_refused() -> None:
    with pytest.raises(OutOfBoundsError, match="480"):
        generate_no_guess(EXPERT, 99, EXPERT.size, random.Random(0))
