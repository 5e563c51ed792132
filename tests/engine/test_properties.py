"""Properties over random boards and random play, checked against naive reference code."""

import itertools
import json
from collections import deque
from collections.abc import Iterable

from hypothesis import event, given, settings
from hypothesis import strategies as st

from games.engine.ascii import parse, render, render_full
from games.engine.errors import InvalidMoveError
from games.engine.flood import flood
from games.engine.grid import Grid, mine_counts
from games.engine.minesweeper import (
    Action,
    CellState,
    Config,
    Event,
    GameState,
    Minefield,
    Move,
    Status,
    apply_move,
    changed_cell_values,
    changed_cells,
    from_dict,
    max_mines,
    new_game,
    public_board,
    replay,
    three_bv,
    to_dict,
)

FAST = settings(max_examples=60, deadline=None)


@st.composite
def configs(draw: st.DrawFn, max_side: int = 12) -> Config:
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    if max_mines(width, height) < 1:  # boards under 4 cells long on both sides hold no mine
        width = max(width, 4)
    mines = draw(st.integers(1, max_mines(width, height)))
    return Config(width, height, mines)


seeds = st.integers(0, 2**64)


# Naive references ------------------------------------------------------------------------------


def naive_neighbours(width: int, height: int, cell: int) -> list[int]:
    x, y = cell % width, cell // width
    return [
        (y + dy) * width + (x + dx)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx, dy) != (0, 0) and 0 <= x + dx < width and 0 <= y + dy < height
    ]


def naive_counts(width: int, height: int, mines: Iterable[int]) -> list[int]:
    mine_set = set(mines)
    return [
        sum(n in mine_set for n in naive_neighbours(width, height, cell))
        for cell in range(width * height)
    ]


def naive_flood(
    width: int,
    height: int,
    counts: list[int],
    starts: Iterable[int],
    revealed: set[int],
    flags: set[int],
) -> list[int]:
    """Breadth first, one cell at a time: open each unflagged cell reached, spread from zeros."""
    queue = deque(starts)
    seen = set(queue)
    opened = set()
    while queue:
        cell = queue.popleft()
        if cell in flags:
            continue
        opened.add(cell)
        if counts[cell] == 0:
            for near in naive_neighbours(width, height, cell):
                if near not in seen:
                    seen.add(near)
                    queue.append(near)
    return sorted(opened - revealed)


def fewest_clicks(width: int, height: int, mines: set[int]) -> int:
    """Brute force over sets of reveals: the fewest that open every safe cell."""
    counts = naive_counts(width, height, mines)
    safe = [cell for cell in range(width * height) if cell not in mines]
    areas = {frozenset(naive_flood(width, height, counts, [c], set(), set())) for c in safe}
    for size in range(1, len(areas) + 1):
        for combo in itertools.combinations(areas, size):
            if len(frozenset().union(*combo)) == len(safe):
                return size
    raise AssertionError("every safe cell opens at least itself")


# Boards ----------------------------------------------------------------------------------------


@st.composite
def minefields(draw: st.DrawFn, max_side: int = 25) -> tuple[Grid, set[int]]:
    grid = Grid(draw(st.integers(1, max_side)), draw(st.integers(1, max_side)))
    mines = draw(st.sets(st.integers(0, grid.size - 1), max_size=grid.size // 2))
    return grid, mines


@FAST
@given(minefields(), st.data())
def test_span_flood_matches_a_naive_breadth_first_flood(
    board: tuple[Grid, set[int]], data: st.DataObject
) -> None:
    grid, mines = board
    safe = [cell for cell in range(grid.size) if cell not in mines]
    if not safe:
        return
    cells = st.sampled_from(range(grid.size))
    flags = data.draw(st.sets(cells, max_size=grid.size // 4))
    revealed = data.draw(st.sets(st.sampled_from(safe), max_size=grid.size // 4))
    starts = data.draw(st.lists(st.sampled_from(safe), min_size=1, max_size=3))
    counts = naive_counts(grid.width, grid.height, mines)
    assert list(mine_counts(grid, frozenset(mines))) == counts
    expected = naive_flood(grid.width, grid.height, counts, starts, revealed, flags)
    event("opens more than its starts" if len(expected) > len(starts) else "opens its starts")
    assert flood(grid, bytes(counts), starts, revealed, flags) == expected


@settings(max_examples=40, deadline=None)
@given(minefields(max_side=4))
def test_three_bv_is_the_fewest_clicks_that_clear_the_board(board: tuple[Grid, set[int]]) -> None:
    grid, mines = board
    if len(mines) == grid.size:
        return
    field = Minefield.build(grid, mines)
    assert three_bv(grid, field) == fewest_clicks(grid.width, grid.height, mines)


# First reveal ----------------------------------------------------------------------------------


@FAST
@given(configs(max_side=30), seeds, st.data())
def test_first_reveal_never_loses_and_opens_a_zero(
    config: Config, seed: int, data: st.DataObject
) -> None:
    x = data.draw(st.integers(0, config.width - 1))
    y = data.draw(st.integers(0, config.height - 1))
    state, _ = apply_move(new_game(config, seed), Move(Action.REVEAL, x, y))
    assert state.status is not Status.LOST
    assert state.field is not None
    assert len(state.field.mines) == config.mines
    assert state.cell_state(y * config.width + x) == (CellState.REVEALED, 0)


# Random play -----------------------------------------------------------------------------------


def hidden_cells(state: GameState) -> list[int]:
    return [c for c in range(state.grid.size) if c not in state.revealed and c not in state.flags]


def draw_move(state: GameState, data: st.DataObject) -> Move:
    """Mostly sensible moves, with some peeking at the truth so that games get won too."""
    grid, field = state.grid, state.field
    kind = data.draw(st.sampled_from(["any", "any", "safe", "safe", "safe", "flag-mine"]))
    player = data.draw(st.integers(0, 2))
    cells: list[int] = list(range(grid.size))
    if field is not None and kind == "safe":
        cells = [c for c in hidden_cells(state) if c not in field.mines] or cells
    if field is not None and kind == "flag-mine":
        cells = [c for c in hidden_cells(state) if c in field.mines] or cells
    x, y = grid.xy(data.draw(st.sampled_from(cells)))
    action = Action.FLAG if kind == "flag-mine" else data.draw(st.sampled_from(list(Action)))
    if kind == "safe":
        action = Action.REVEAL
    return Move(action, x, y, player)


def check_invariants(
    before: GameState, move: Move, after: GameState, events: tuple[Event, ...]
) -> None:
    field = after.field
    assert field is not None or after.status is Status.PLAYING
    if not events:
        assert after is before
    # The events are exactly the diff of the public view.
    board = public_board(before)
    for change in changed_cells(after.grid, events):
        board[change.y][change.x] = (change.state, change.count)
    assert board == public_board(after)
    # The lean form the bots' JSON is made from says the same, cell for cell.
    assert list(changed_cell_values(after.grid, events)) == [
        (c.x, c.y, c.state, c.count) for c in changed_cells(after.grid, events)
    ]
    if field is not None:
        covered = set(range(after.grid.size)) - set(after.revealed)
        won = covered == field.mines and not after.exploded
        assert (after.status is Status.WON) == won
        assert (after.status is Status.LOST) == bool(after.exploded)
        assert not set(after.revealed) & field.mines
    if after.status is Status.PLAYING:
        assert not {"*", "!", "X"} & set(render(after))
        assert after.mines_left == after.config.mines - len(after.flags)
    if after.status is Status.WON:
        assert after.mines_left == 0
    for cell in set(after.revealed) - set(before.revealed):
        assert after.revealed[cell] == move.player


def play_randomly(config: Config, seed: int, data: st.DataObject) -> tuple[GameState, list[Move]]:
    state = new_game(config, seed)
    moves = []
    for _ in range(data.draw(st.integers(0, 25))):
        if state.is_over:
            break
        move = draw_move(state, data)
        stored = to_dict(state)
        after, events = apply_move(state, move)
        assert to_dict(state) == stored  # the input state never changes
        # Stored from the move's start, reusing its unchanged parts: the same as stored afresh.
        assert to_dict(after, previous=(state, stored)) == to_dict(after)
        check_invariants(state, move, after, events)
        state = after
        moves.append(move)
    return state, moves


@FAST
@given(configs(max_side=8), seeds, st.data())
def test_random_play_keeps_the_rules(config: Config, seed: int, data: st.DataObject) -> None:
    state, moves = play_randomly(config, seed, data)
    event(state.status.value)
    if state.is_over:
        after = data.draw(st.sampled_from(list(Action)))
        try:
            apply_move(state, Move(after, 0, 0))
        except InvalidMoveError as error:
            assert "game is over" in str(error)
        else:
            raise AssertionError("a finished game took a move")


@FAST
@given(configs(max_side=8), seeds, st.data())
def test_replaying_the_moves_from_the_seed_reproduces_the_state(
    config: Config, seed: int, data: st.DataObject
) -> None:
    state, moves = play_randomly(config, seed, data)
    assert replay(config, seed, moves) == state


@FAST
@given(configs(max_side=8), seeds, st.data())
def test_storage_and_text_forms_round_trip(config: Config, seed: int, data: st.DataObject) -> None:
    state, _ = play_randomly(config, seed, data)
    assert from_dict(json.loads(json.dumps(to_dict(state)))) == state
    if state.field is not None:
        reread = parse(render_full(state), seed=seed)
        assert render_full(reread) == render_full(state)
        assert render(reread) == render(state)
        assert reread.status is state.status


def test_a_flag_stores_the_revealed_cells_of_the_move_before_as_they_were() -> None:
    """The part a flag leaves alone is handed on, not grouped again (a big opening's cells)."""
    state, _ = apply_move(new_game(Config(16, 16, 10), seed=3), Move(Action.REVEAL, 8, 8))
    stored = to_dict(state)
    hidden = next(cell for cell in range(state.grid.size) if cell not in state.revealed)
    flagged, _ = apply_move(state, Move(Action.FLAG, *state.grid.xy(hidden), player=1))
    again = to_dict(flagged, previous=(state, stored))
    assert again["revealed"] is stored["revealed"] and again["field"] is stored["field"]
    assert again["flags"] == {"1": [hidden]} and again == to_dict(flagged)
