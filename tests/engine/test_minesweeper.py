"""Minesweeper rules, built from ASCII fixtures (the full view: `#` hidden safe, `*` hidden mine,
`F` flag on a mine, `f` flag on a safe cell, `_`/digits revealed, `!` exploded)."""

import itertools
import json
from collections.abc import Iterable

import pytest

from games.engine.ascii import parse, render, render_full
from games.engine.errors import (
    EngineError,
    GameOverError,
    InvalidBoardError,
    InvalidMoveError,
    OutOfBoundsError,
)
from games.engine.grid import MAX_SIDE, Grid
from games.engine.minesweeper import (
    BEGINNER,
    EXPERT,
    INTERMEDIATE,
    PRESETS,
    Action,
    CellChange,
    CellsRevealed,
    CellState,
    Config,
    Event,
    GameEnded,
    GameState,
    Minefield,
    Move,
    Status,
    apply_move,
    changed_cells,
    from_dict,
    max_mines,
    new_game,
    public_board,
    replay,
    three_bv,
    to_dict,
)

Outcome = tuple[GameState, tuple[Event, ...]]


def board(text: str, *, player: int = 0) -> GameState:
    return parse(text, player=player)


def reveal(state: GameState, x: int, y: int, player: int = 0) -> Outcome:
    return apply_move(state, Move(Action.REVEAL, x, y, player))


def flag(state: GameState, x: int, y: int, player: int = 0) -> Outcome:
    return apply_move(state, Move(Action.FLAG, x, y, player))


def chord(state: GameState, x: int, y: int, player: int = 0) -> Outcome:
    return apply_move(state, Move(Action.CHORD, x, y, player))


def fixture(text: str) -> str:
    """An indented multi-line board as the text form prints it."""
    return "\n".join(line.strip() for line in text.strip().splitlines())


def cell_changes(state: GameState, events: Iterable[Event]) -> dict[tuple[int, int], CellState]:
    return {(c.x, c.y): c.state for c in changed_cells(state.grid, events)}


# Board validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(0, 9), (9, 0), (MAX_SIDE + 1, 9), (9, 1001)])
def test_board_sides_outside_1_to_1000_are_refused(width: int, height: int) -> None:
    with pytest.raises(InvalidBoardError, match="between 1 and 1000"):
        Config(width, height, 1)


@pytest.mark.parametrize("bad", ["9", 9.0, None, True])
def test_board_sides_must_be_whole_numbers(bad: object) -> None:
    with pytest.raises(InvalidBoardError, match="width must be a whole number") as error:
        Config(bad, 9, 1)  # type: ignore[arg-type]
    assert repr(bad) in str(error.value)
    with pytest.raises(InvalidBoardError, match="height must be a whole number"):
        Config(9, bad, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["10", 10.0, None, False])
def test_mine_count_must_be_a_whole_number(bad: object) -> None:
    with pytest.raises(InvalidBoardError, match="mines must be a whole number"):
        Config(9, 9, bad)  # type: ignore[arg-type]


def test_largest_boards_are_accepted() -> None:
    assert Config(MAX_SIDE, MAX_SIDE, 1).grid.size == 1_000_000
    assert new_game(Config(MAX_SIDE, 1, 997), 0).config.mines == 997


def test_a_game_needs_at_least_one_mine() -> None:
    with pytest.raises(InvalidBoardError, match="takes 1 to 72 mines.*got 0"):
        new_game(Config(9, 9, 0), 0)


@pytest.mark.parametrize("mines", [-1, 81, 82])
def test_mine_counts_outside_the_board_are_refused(mines: int) -> None:
    with pytest.raises(InvalidBoardError, match=f"got {mines}"):
        Config(9, 9, mines)


def test_mines_must_leave_room_for_the_first_click_opening() -> None:
    assert new_game(Config(9, 9, 72), 0).config.mines == 72
    with pytest.raises(InvalidBoardError, match="takes 1 to 72 mines"):
        new_game(Config(9, 9, 73), 0)


@pytest.mark.parametrize(
    ("width", "height", "expected"),
    [
        (1, 1, 0),  # the first click is the whole board
        (2, 2, 0),  # every cell touches every other
        (3, 3, 0),
        (2, 1, 0),
        (3, 1, 0),
        (4, 1, 1),  # a 1-high board keeps a 1x3 opening free
        (1, 5, 2),
        (2, 5, 4),  # a 2-wide board keeps a 2x3 opening free
        (4, 4, 7),
        (9, 9, 72),
        (30, 16, 471),
        (1000, 1000, 999_991),
    ],
)
def test_max_mines_keeps_the_largest_opening_free(width: int, height: int, expected: int) -> None:
    assert max_mines(width, height) == expected
    assert Config(width, height, 0).max_mines == expected


@pytest.mark.parametrize(("width", "height"), [(2, 2), (3, 3), (1, 3), (3, 2)])
def test_tiny_boards_take_no_mine(width: int, height: int) -> None:
    for mines in (0, 1):
        with pytest.raises(InvalidBoardError, match=f"a {width}x{height} board is too small"):
            new_game(Config(width, height, mines), 0)


def test_a_one_cell_board_takes_no_mine() -> None:
    with pytest.raises(InvalidBoardError, match="mines must be between 0 and 0 on a 1x1 board"):
        Config(1, 1, 1)
    with pytest.raises(InvalidBoardError, match="a 1x1 board is too small"):
        new_game(Config(1, 1, 0), 0)


def test_one_row_board_at_its_limit_plays() -> None:
    for seed in range(10):
        state, _ = reveal(new_game(Config(5, 1, 2), seed), 0, 0)
        assert state.field is not None
        assert state.field.mines <= {2, 3, 4}
        assert state.cell_state(0) == (CellState.REVEALED, 0)


def test_presets() -> None:
    assert (BEGINNER.width, BEGINNER.height, BEGINNER.mines) == (9, 9, 10)
    assert (INTERMEDIATE.width, INTERMEDIATE.height, INTERMEDIATE.mines) == (16, 16, 40)
    assert (EXPERT.width, EXPERT.height, EXPERT.mines) == (30, 16, 99)
    assert PRESETS == {"beginner": BEGINNER, "intermediate": INTERMEDIATE, "expert": EXPERT}
    for config in PRESETS.values():
        assert new_game(config, 0).status is Status.PLAYING


def test_engine_errors_are_value_errors() -> None:
    assert issubclass(EngineError, ValueError)
    assert issubclass(OutOfBoundsError, InvalidMoveError)
    assert issubclass(GameOverError, InvalidMoveError)


# First reveal and seeds ------------------------------------------------------------------------


def test_new_game_has_no_mines_until_the_first_reveal() -> None:
    state = new_game(BEGINNER, seed=1)
    assert state.field is None
    assert state.mines_left == 10
    assert render(state) == "\n".join(["#########"] * 9)


@pytest.mark.parametrize(("x", "y"), [(0, 0), (8, 0), (4, 4), (0, 5), (8, 8)])
def test_first_reveal_is_never_on_or_next_to_a_mine(x: int, y: int) -> None:
    for seed in range(40):
        state, events = reveal(new_game(BEGINNER, seed), x, y)
        assert state.field is not None
        assert not state.grid.opening(y * 9 + x) & state.field.mines
        assert len(state.field.mines) == 10
        assert state.status is Status.PLAYING
        assert state.cell_state(y * 9 + x) == (CellState.REVEALED, 0)
        assert isinstance(events[0], CellsRevealed)


def test_densest_board_opens_exactly_the_first_clicks_block() -> None:
    state, _ = reveal(new_game(Config(5, 5, 16), seed=7), 2, 2)
    assert render_full(state) == fixture("""
        *****
        *535*
        *3_3*
        *535*
        *****
        """)


def test_same_seed_and_first_click_place_the_same_mines() -> None:
    first, _ = reveal(new_game(EXPERT, seed=42), 10, 5)
    second, _ = reveal(new_game(EXPERT, seed=42), 10, 5)
    assert first == second
    assert render_full(first) == render_full(second)


def test_different_seeds_place_different_mines() -> None:
    layouts = {render_full(reveal(new_game(EXPERT, seed), 10, 5)[0]) for seed in range(5)}
    assert len(layouts) == 5


def test_flags_before_the_first_reveal_do_not_change_the_mines() -> None:
    plain, _ = reveal(new_game(BEGINNER, 5), 4, 4)
    flagged, _ = flag(new_game(BEGINNER, 5), 0, 0)
    flagged, _ = reveal(flagged, 4, 4)
    assert plain.field == flagged.field


# Flood -----------------------------------------------------------------------------------------


def test_flood_stops_at_numbers() -> None:
    state = board(
        """
        #####*##
        #####*##
        #####*##
        #####*##
        """
    )
    state, events = reveal(state, 0, 0)
    assert render_full(state) == fixture("""
        ____2*##
        ____3*##
        ____3*##
        ____2*##
        """)
    assert events == (
        CellsRevealed(
            0,
            (0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28),
            bytes([0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2]),
        ),
    )


def test_reveal_on_a_number_opens_only_that_cell() -> None:
    state, events = reveal(board("#####*##\n#####*##"), 4, 0)
    assert render_full(state) == fixture("####2*##\n#####*##")
    assert events == (CellsRevealed(0, (4,), bytes([2])),)


def test_flood_never_opens_or_passes_a_flag() -> None:
    state = board(
        """
        #f#####
        #f#####
        #f###*#
        """
    )
    state, _ = reveal(state, 0, 0)
    assert render_full(state) == fixture("""
        _f#####
        _f#####
        _f###*#
        """)


def test_flood_cascades_through_zeros_joined_only_at_a_corner() -> None:
    # The zeros at (1, 1) and (2, 2) touch only diagonally; the flood still crosses.
    state = board(
        """
        ###*#
        #####
        #####
        *####
        #####
        """
    )
    state, _ = reveal(state, 0, 0)
    assert render_full(state) == fixture("""
        __1*#
        __111
        11___
        *1___
        #1___
        """)


def test_flood_goes_around_a_block_of_mines() -> None:
    state = board(
        """
        #########
        #########
        ###***###
        ###***###
        ###***###
        """
    )
    state, _ = reveal(state, 0, 4)
    assert render_full(state) == fixture("""
        _________
        __12321__
        __2***2__
        __3***3__
        __2***2__
        """)
    assert state.status is Status.WON


# Flags -----------------------------------------------------------------------------------------


def test_flag_toggles_on_a_hidden_cell() -> None:
    state = new_game(BEGINNER, 0)
    flagged, events = flag(state, 3, 4, player=2)
    assert flagged.flags == {4 * 9 + 3: 2}
    assert events == (CellChange(3, 4, CellState.FLAGGED, player=2),)
    assert flagged.mines_left == 9
    assert render(flagged).splitlines()[4] == "###F#####"
    unflagged, events = flag(flagged, 3, 4, player=1)
    assert unflagged.flags == {}
    assert events == (CellChange(3, 4, CellState.HIDDEN, player=1),)
    assert unflagged.mines_left == 10
    assert state.flags == {}  # the input never changes


def test_flag_on_a_revealed_cell_changes_nothing() -> None:
    state = board("_1*\n_1#")
    after, events = flag(state, 1, 0)
    assert after is state
    assert events == ()


def test_reveal_on_a_flag_changes_nothing() -> None:
    state = board("f#*\n###")
    after, events = reveal(state, 0, 0)
    assert after is state
    assert events == ()


def test_mines_left_is_mines_minus_flags_even_below_zero() -> None:
    state = board("*f#\n###\n##*")
    assert state.mines_left == 1
    state, _ = flag(state, 2, 1)
    state, _ = flag(state, 1, 1)
    assert state.mines_left == -1


# Chords ----------------------------------------------------------------------------------------


CHORD_BOARD = """
    F####*#
    #1###*#
    #####*#
"""


def test_chord_with_matching_flags_reveals_the_other_neighbours() -> None:
    state, events = chord(board(CHORD_BOARD), 1, 1, player=3)
    assert render_full(state) == fixture("""
        F1__2*#
        11__3*#
        ____2*#
        """)
    assert state.status is Status.PLAYING
    assert len(events) == 1 and isinstance(events[0], CellsRevealed)
    assert events[0].player == 3
    assert set(events[0].cells) == {c for c, p in state.revealed.items() if p == 3}


def test_reveal_on_a_revealed_number_chords() -> None:
    assert reveal(board(CHORD_BOARD), 1, 1)[0] == chord(board(CHORD_BOARD), 1, 1)[0]


@pytest.mark.parametrize(
    "text",
    [
        "*####*#\n#1###*#\n#####*#",  # no flag around a 1
        "Ff###*#\n#1###*#\n#####*#",  # two flags around a 1
    ],
)
def test_chord_with_a_mismatched_flag_count_changes_nothing(text: str) -> None:
    state = board(text)
    assert chord(state, 1, 1) == (state, ())
    assert chord(state, 1, 1)[0] is state


def test_chord_on_a_zero_or_hidden_cell_changes_nothing() -> None:
    state = board("__1*#\n__2##\n__1*#")
    assert chord(state, 0, 0) == (state, ())
    assert chord(state, 0, 0)[0] is state
    assert chord(state, 3, 1)[0] is state  # hidden
    assert reveal(state, 1, 1)[0] is state  # a revealed zero
    assert chord(state, 2, 1)[0] is state  # a 2 with no flag


def test_chord_with_nothing_left_to_open_changes_nothing() -> None:
    state = board("F1_\n11_\n111\n#*#")
    assert chord(state, 1, 0) == (state, ())


def test_chord_with_a_wrong_flag_reveals_the_mine_and_loses() -> None:
    state = board(
        """
        *#f##F#
        #1###*#
        #####*#
        """
    )
    state, events = chord(state, 1, 1, player=4)
    assert state.status is Status.LOST
    assert state.ended_by == 4
    assert state.exploded == {0}
    assert render(state) == fixture("""
        !1X_2F#
        11__3*#
        ____2*#
        """)
    assert isinstance(events[0], CellsRevealed)
    assert cell_changes(state, events[1:]) == {
        (0, 0): CellState.EXPLODED,
        (2, 0): CellState.WRONG_FLAG,
        (5, 1): CellState.MINE,
        (5, 2): CellState.MINE,
    }
    assert events[-1] == GameEnded(Status.LOST, 4, 0, 0)


# Loss ------------------------------------------------------------------------------------------


LOSS_BOARD = """
    #*#F
    f2##
    ##*#
"""


def test_revealing_a_mine_loses() -> None:
    state, events = reveal(board(LOSS_BOARD), 2, 2, player=7)
    assert state.status is Status.LOST
    assert state.is_over
    assert state.exploded == {2 * 4 + 2}
    assert state.ended_by == 7
    assert events[-1] == GameEnded(Status.LOST, 7, 2, 2)


def test_a_loss_shows_every_mine_the_exploded_one_and_wrong_flags() -> None:
    state, events = reveal(board(LOSS_BOARD), 2, 2, player=7)
    assert render(state) == fixture("#*#F\nX2##\n##!#")
    assert state.cell_state(3) == (CellState.FLAGGED, None)  # a correct flag stays a flag
    assert state.cell_state(0) == (CellState.HIDDEN, None)
    changes = list(changed_cells(state.grid, events))
    assert changes == [
        CellChange(1, 0, CellState.MINE),
        CellChange(0, 1, CellState.WRONG_FLAG),
        CellChange(2, 2, CellState.EXPLODED, player=7),
    ]
    assert state.mines_left == 1


def test_public_board_after_a_loss() -> None:
    state, _ = reveal(board(LOSS_BOARD), 2, 2)
    assert public_board(state)[1] == [
        (CellState.WRONG_FLAG, None),
        (CellState.REVEALED, 2),
        (CellState.HIDDEN, None),
        (CellState.HIDDEN, None),
    ]


# Win -------------------------------------------------------------------------------------------


def test_revealing_the_last_safe_cell_wins_without_flags() -> None:
    state = board("_1*\n_2#\n_1*")
    state, events = reveal(state, 2, 1, player=5)
    assert state.status is Status.WON
    assert state.ended_by == 5
    assert state.mines_left == 0
    assert render(state) == fixture("_1F\n_22\n_1F")
    assert list(changed_cells(state.grid, events)) == [
        CellChange(2, 1, CellState.REVEALED, 2, 5),
        CellChange(2, 0, CellState.FLAGGED),
        CellChange(2, 2, CellState.FLAGGED),
    ]
    assert events[-1] == GameEnded(Status.WON, 5, 2, 1)


def test_a_win_keeps_existing_flags_and_flags_the_rest() -> None:
    state, events = reveal(board("_1F\n_2#\n_1*"), 2, 1)
    assert state.status is Status.WON
    assert cell_changes(state, events) == {(2, 1): CellState.REVEALED, (2, 2): CellState.FLAGGED}
    assert state.mines_left == 0


def test_a_chord_can_win() -> None:
    state, events = chord(board("F1#\n11#\n###\n###"), 1, 0)
    assert state.status is Status.WON
    assert isinstance(events[-1], GameEnded)
    assert events[-1].status is Status.WON


def test_a_flag_on_a_safe_cell_blocks_the_win_until_removed() -> None:
    state, _ = reveal(board("_1*\n_2f\n_1*"), 2, 1)
    assert state.status is Status.PLAYING
    state, _ = flag(state, 2, 1)
    state, _ = reveal(state, 2, 1)
    assert state.status is Status.WON


# Finished games and bad moves ------------------------------------------------------------------


@pytest.mark.parametrize("action", list(Action))
def test_moves_after_a_loss_raise_game_over(action: Action) -> None:
    state, _ = reveal(board(LOSS_BOARD), 2, 2)
    with pytest.raises(GameOverError, match="lost"):
        apply_move(state, Move(action, 0, 0))


@pytest.mark.parametrize("action", list(Action))
def test_moves_after_a_win_raise_game_over(action: Action) -> None:
    with pytest.raises(GameOverError, match="won"):
        apply_move(board("_1*\n_22\n_1*"), Move(action, 0, 0))


@pytest.mark.parametrize(("x", "y"), [(9, 0), (0, 9), (-1, 0), (0, -1), (100, 100)])
@pytest.mark.parametrize("action", list(Action))
def test_moves_off_the_board_name_the_cell(action: Action, x: int, y: int) -> None:
    with pytest.raises(
        OutOfBoundsError, match=rf"\({x}, {y}\).*x must be 0\.\.8, y must be 0\.\.8"
    ):
        apply_move(new_game(BEGINNER, 0), Move(action, x, y))


@pytest.mark.parametrize("bad", ["3", 3.0, None, True])
def test_coordinates_must_be_whole_numbers(bad: object) -> None:
    state = new_game(BEGINNER, 0)
    with pytest.raises(InvalidMoveError, match="x must be a whole number") as error:
        apply_move(state, Move(Action.REVEAL, bad, 0))  # type: ignore[arg-type]
    assert not isinstance(error.value, OutOfBoundsError)
    assert repr(bad) in str(error.value)
    with pytest.raises(InvalidMoveError, match="y must be a whole number"):
        apply_move(state, Move(Action.FLAG, 0, bad))  # type: ignore[arg-type]


def test_unknown_action_is_refused() -> None:
    with pytest.raises(InvalidMoveError, match="unknown action 'reveal'"):
        apply_move(new_game(BEGINNER, 0), Move("reveal", 0, 0))  # type: ignore[arg-type]


def test_moves_never_change_their_input_state() -> None:
    state = board(CHORD_BOARD)
    before = to_dict(state)
    for move in (Move(Action.CHORD, 1, 1), Move(Action.FLAG, 6, 0), Move(Action.REVEAL, 5, 0)):
        apply_move(state, move)
    assert to_dict(state) == before


# Players ---------------------------------------------------------------------------------------


def test_each_player_is_recorded_on_the_cells_they_opened_and_flagged() -> None:
    state = board(CHORD_BOARD)
    state, _ = flag(state, 5, 2, player=2)
    state, _ = chord(state, 1, 1, player=1)
    state, events = reveal(state, 6, 2, player=2)
    assert state.flags == {0: 0, 19: 2}
    assert state.revealed[8] == 0  # from the fixture
    assert state.revealed[1] == 1
    assert state.revealed[20] == 2
    assert {p for c, p in state.revealed.items() if c != 8} == {1, 2}
    assert events == (CellsRevealed(2, (20,), bytes([2])),)
    assert [change.player for change in changed_cells(state.grid, events)] == [2]


# The public view -------------------------------------------------------------------------------


def test_the_public_view_never_shows_a_hidden_mine_while_playing() -> None:
    state = new_game(EXPERT, 3)
    for x, y in [(15, 8), (0, 0), (29, 15), (29, 0), (0, 15)]:
        if state.is_over:
            break
        state, _ = reveal(state, x, y)
        if state.status is Status.PLAYING:
            assert "*" not in render(state) and "!" not in render(state)
            assert state.field is not None
            assert all(state.cell_state(mine)[0] is CellState.HIDDEN for mine in state.field.mines)
            flat = [cell for row in public_board(state) for cell, _ in row]
            assert CellState.MINE not in flat


# 3BV -------------------------------------------------------------------------------------------


def fewest_clicks(state: GameState) -> int:
    """Brute force: the smallest set of reveals (no flags, no chords) that opens every safe cell."""
    assert state.field is not None
    safe = [c for c in range(state.grid.size) if c not in state.field.mines]
    areas = set()
    for cell in safe:
        x, y = state.grid.xy(cell)
        opened = reveal(state, x, y)[0].revealed
        areas.add(frozenset(opened))
    for size in range(1, len(areas) + 1):
        for combo in itertools.combinations(areas, size):
            if len(frozenset().union(*combo)) == len(safe):
                return size
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*##\n###\n###", 1),
        ("#*#", 2),
        ("##*##", 2),
        ("*#*\n###\n*#*", 5),
        ("#####*##\n#####*##\n#####*##\n#####*##", 2),
        ("###*#\n#####\n#####\n*####\n#####", 3),  # one opening and two lone numbers
        ("*#*#*\n#*#*#\n*#*#*", 7),
    ],
)
def test_three_bv_of_hand_made_boards(text: str, expected: int) -> None:
    state = board(text)
    assert state.field is not None
    assert three_bv(state.grid, state.field) == expected
    assert fewest_clicks(state) == expected


# Replay and storage ----------------------------------------------------------------------------


def play_sample_game(seed: int) -> tuple[GameState, list[Move]]:
    state = new_game(BEGINNER, seed)
    moves = [Move(Action.REVEAL, 4, 4, 1), Move(Action.FLAG, 0, 0, 2), Move(Action.FLAG, 8, 8, 1)]
    moves += [Move(Action.REVEAL, x, 8 - x, 2) for x in range(9)]
    played = []
    for move in moves:
        if state.is_over:
            break
        state, _ = apply_move(state, move)
        played.append(move)
    return state, played


def test_replay_from_the_seed_and_moves_rebuilds_the_game() -> None:
    for seed in range(5):
        state, moves = play_sample_game(seed)
        assert replay(BEGINNER, seed, moves) == state


@pytest.mark.parametrize(
    "state",
    [
        new_game(INTERMEDIATE, 12345),
        flag(new_game(BEGINNER, 1), 2, 3, player=4)[0],
        play_sample_game(0)[0],
        play_sample_game(1)[0],
        reveal(board(LOSS_BOARD, player=3), 2, 2, player=3)[0],
        reveal(board("_1*\n_2#\n_1*"), 2, 1, player=2)[0],
        new_game(Config(4, 4, 3, no_guess=True), 9),  # the flag is stored; no mines placed yet
    ],
)
def test_storage_form_round_trips_through_json(state: GameState) -> None:
    stored = json.loads(json.dumps(to_dict(state)))
    assert from_dict(stored) == state
    assert to_dict(from_dict(stored)) == stored


def test_storage_form_refuses_an_unknown_version() -> None:
    stored = to_dict(new_game(BEGINNER, 0))
    stored["v"] = 2
    with pytest.raises(InvalidBoardError, match="unknown stored game version 2"):
        from_dict(stored)


def test_minefield_counts_neighbouring_mines() -> None:
    field = Minefield.build(Grid(3, 3), [0, 8])
    assert list(field.counts) == [0, 1, 0, 1, 2, 1, 0, 1, 0]
