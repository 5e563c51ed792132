"""Tic-tac-toe rules, built from text fixtures (rows of `X`, `O`, `.`)."""

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import tictactoe as engine
from games.engine.errors import (
    EngineError,
    GameOverError,
    InvalidMoveError,
    OutOfBoundsError,
    ParseError,
)
from games.engine.tictactoe import (
    LINES,
    GameEnded,
    InvalidPositionError,
    Mark,
    Move,
    NotYourTurnError,
    SquarePlaced,
    SquareTakenError,
    State,
    Status,
    apply_move,
    from_dict,
    legal_moves,
    new_game,
    parse,
    render,
    rows,
    to_dict,
)


def play(state: State, *squares: int) -> State:
    """Play squares alternately for whoever is to move."""
    for square in squares:
        state, _ = apply_move(state, Move(square, state.turn))
    return state


# New game and turns ----------------------------------------------------------------------------


def test_new_game_is_empty_with_x_to_move() -> None:
    state = new_game()
    assert render(state) == "...\n...\n..."
    assert state.turn is Mark.X
    assert state.status is Status.PLAYING
    assert state.winner is None
    assert state.winning_line is None
    assert legal_moves(state) == tuple(range(9))


def test_turns_alternate_starting_with_x() -> None:
    state = play(new_game(), 4)
    assert state.turn is Mark.O
    state = play(state, 0)
    assert state.turn is Mark.X
    assert render(state) == "O..\n.X.\n..."


def test_other_mark_swaps_x_and_o() -> None:
    assert Mark.X.other is Mark.O
    assert Mark.O.other is Mark.X


def test_placing_a_mark_emits_only_square_placed_while_playing() -> None:
    state, events = apply_move(new_game(), Move(4, Mark.X))
    assert events == (SquarePlaced(4, Mark.X),)
    assert state.squares[4] is Mark.X


def test_apply_move_leaves_its_input_unchanged() -> None:
    before = parse("X..\n.O.\n...")
    apply_move(before, Move(8, Mark.X))
    assert render(before) == "X..\n.O.\n..."


def test_legal_moves_are_the_empty_squares_in_order() -> None:
    assert legal_moves(parse("X..\n.O.\n..X")) == (1, 2, 3, 5, 6, 7)


# Wins and draws --------------------------------------------------------------------------------


@pytest.mark.parametrize("line", LINES)
def test_every_line_wins_and_is_reported(line: tuple[int, int, int]) -> None:
    others = [square for square in range(9) if square not in line]
    # Two O squares off the line can never make a line of their own.
    state = play(new_game(), line[0], others[0], line[1], others[1])
    state, events = apply_move(state, Move(line[2], Mark.X))
    assert state.status is Status.WON
    assert state.winner is Mark.X
    assert state.winning_line == line
    assert events == (SquarePlaced(line[2], Mark.X), GameEnded(Status.WON, Mark.X, line))
    assert legal_moves(state) == ()


def test_o_wins_a_column_from_an_indented_fixture() -> None:
    state = parse("""
        XO.
        XO.
        ..X
    """)
    state, events = apply_move(state, Move(7, Mark.O))
    assert render(state) == "XO.\nXO.\n.OX"
    assert (state.status, state.winner, state.winning_line) == (Status.WON, Mark.O, (1, 4, 7))
    assert events[-1] == GameEnded(Status.WON, Mark.O, (1, 4, 7))


def test_a_full_board_without_a_line_is_a_draw() -> None:
    state, events = apply_move(parse("XOX\nXOO\nOX."), Move(8, Mark.X))
    assert state.status is Status.DRAW
    assert state.winner is None
    assert state.winning_line is None
    assert events == (SquarePlaced(8, Mark.X), GameEnded(Status.DRAW, None, None))


def test_a_line_made_by_the_last_square_is_a_win_not_a_draw() -> None:
    state, _ = apply_move(parse("XOX\nOXO\nOX."), Move(8, Mark.X))
    assert (state.status, state.winner, state.winning_line) == (Status.WON, Mark.X, (0, 4, 8))


def test_a_move_completing_two_lines_reports_the_first_in_order() -> None:
    state, _ = apply_move(parse("XX.\nOOX\nOOX"), Move(2, Mark.X))
    assert state.winning_line == (0, 1, 2)


def test_parsed_finished_positions_carry_their_result() -> None:
    won = parse("XXX\nOO.\n...")
    assert (won.status, won.winner, won.winning_line, won.turn) == (
        Status.WON,
        Mark.X,
        (0, 1, 2),
        Mark.O,
    )
    assert parse("XOX\nXOO\nOXX").status is Status.DRAW


# Refused moves ---------------------------------------------------------------------------------


def test_a_taken_square_is_refused_and_named() -> None:
    with pytest.raises(SquareTakenError, match=r"square 4 is already taken by X"):
        apply_move(parse("...\n.X.\n..."), Move(4, Mark.O))


def test_a_move_out_of_turn_is_refused() -> None:
    with pytest.raises(NotYourTurnError, match=r"cannot place O on square 0: it is X's turn"):
        apply_move(new_game(), Move(0, Mark.O))


def test_a_move_after_the_game_ends_is_refused() -> None:
    with pytest.raises(GameOverError, match=r"place O on square 8: the game is over \(X won\)"):
        apply_move(parse("XXX\nOO.\n..."), Move(8, Mark.O))


def test_a_move_after_a_draw_is_refused() -> None:
    with pytest.raises(GameOverError, match=r"game is over \(draw\)"):
        apply_move(parse("XOX\nXOO\nOXX"), Move(0, Mark.O))


@pytest.mark.parametrize("square", [-1, 9, 100, True, "4", 4.0, None])
def test_a_square_off_the_board_is_refused_and_quoted(square: object) -> None:
    with pytest.raises(OutOfBoundsError, match=rf"square {square!r} is off the board: squares are"):
        apply_move(new_game(), Move(square, Mark.X))  # type: ignore[arg-type]


def test_a_bad_square_is_reported_before_the_game_being_over() -> None:
    # A malformed request is the client's bug (400); a move that came too late is not (409).
    with pytest.raises(OutOfBoundsError):
        apply_move(parse("XXX\nOO.\n..."), Move(9, Mark.O))


def test_a_mark_that_is_not_a_mark_is_refused() -> None:
    with pytest.raises(InvalidMoveError, match=r"got 'X'"):
        apply_move(new_game(), Move(0, "X"))  # type: ignore[arg-type]


def test_move_errors_are_value_errors_for_the_shell() -> None:
    for error in (SquareTakenError, NotYourTurnError, GameOverError, OutOfBoundsError):
        assert issubclass(error, InvalidMoveError)
        assert issubclass(error, EngineError)
        assert issubclass(error, ValueError)


# Text form -------------------------------------------------------------------------------------


def test_render_gives_three_rows_of_x_o_and_dots() -> None:
    state = play(new_game(), 0, 4, 8)
    assert rows(state) == ("X..", ".O.", "..X")
    assert render(state) == "X..\n.O.\n..X"


def test_parse_infers_whose_turn_it_is_from_the_counts() -> None:
    assert parse("X..\n...\n...").turn is Mark.O
    assert parse("X..\n.O.\n...").turn is Mark.X


@pytest.mark.parametrize(
    "text",
    ["...\n...", "....\n...\n...", "...\n...\n...\n...", "", "..\n...\n...."],
)
def test_parse_refuses_a_board_that_is_not_three_by_three(text: str) -> None:
    with pytest.raises(ParseError, match="three rows of three characters"):
        parse(text)


def test_parse_refuses_an_unknown_character_and_quotes_it() -> None:
    with pytest.raises(ParseError, match=r"unknown square 'x'"):
        parse("x..\n...\n...")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("O..\n...\n...", "got 0 X and 1 O"),
        ("XX.\n...\n...", "got 2 X and 0 O"),
        ("XXX\nOOO\nX..", "both X and O hold a line"),
        ("XXX\nOO.\n.O.", "X won but play went on"),
        ("OOO\nXX.\nX.X", "O won but play went on"),
    ],
)
def test_parse_refuses_positions_no_game_reaches(text: str, reason: str) -> None:
    with pytest.raises(InvalidPositionError, match=reason):
        parse(text)


def test_unreachable_positions_are_parse_errors() -> None:
    assert issubclass(InvalidPositionError, ParseError)


def test_a_state_with_fields_that_contradict_its_squares_cannot_be_built() -> None:
    squares = new_game().squares
    with pytest.raises(InvalidPositionError, match=r"got turn=O, status=playing"):
        State(squares, Mark.O, Status.PLAYING, None, None)


def test_a_state_with_malformed_squares_cannot_be_built() -> None:
    with pytest.raises(InvalidPositionError, match=r"tuple of 9 Mark or None"):
        State((None,) * 8, Mark.X, Status.PLAYING, None, None)


# Storage form ----------------------------------------------------------------------------------


def test_storage_form_is_plain_json() -> None:
    state = parse("XXX\nOO.\n...")
    assert to_dict(state) == {
        "squares": "XXXOO....",
        "turn": "O",
        "status": "won",
        "winner": "X",
        "winning_line": [0, 1, 2],
    }


def test_storage_form_round_trips_through_json() -> None:
    state = parse("XO.\n.X.\nO..")
    assert from_dict(json.loads(json.dumps(to_dict(state)))) == state


def test_from_dict_refuses_stored_fields_that_contradict_the_squares() -> None:
    data = to_dict(parse("XXX\nOO.\n..."))
    data["winner"] = "O"
    with pytest.raises(InvalidPositionError, match=r"'winner': 'O'"):
        from_dict(data)


@pytest.mark.parametrize("squares", [None, "XO", "XO......?", ["X"] + [None] * 8, 9])
def test_from_dict_refuses_malformed_squares_and_quotes_them(squares: object) -> None:
    with pytest.raises(ParseError, match=re.escape(f"got {squares!r}")):
        from_dict({"squares": squares})


def test_from_dict_refuses_something_that_is_not_a_mapping() -> None:
    with pytest.raises(ParseError):
        from_dict("XO.......")  # type: ignore[arg-type]


# Properties ------------------------------------------------------------------------------------


def check_consistent(state: State) -> None:
    filled = sum(mark is not None for mark in state.squares)
    assert (state.winner is not None) == (state.status is Status.WON)
    assert (state.winning_line is not None) == (state.status is Status.WON)
    if state.winning_line is not None:
        assert all(state.squares[square] is state.winner for square in state.winning_line)
    if state.status is Status.DRAW:
        assert filled == 9
    if state.status is Status.PLAYING:
        assert filled < 9
        assert legal_moves(state)
    else:
        assert legal_moves(state) == ()


@given(st.data())
def test_random_legal_play_ends_within_nine_moves_consistently(data: st.DataObject) -> None:
    state = new_game()
    log: list[Move] = []
    while state.status is Status.PLAYING:
        square = data.draw(st.sampled_from(legal_moves(state)))
        move = Move(square, state.turn)
        state, events = apply_move(state, move)
        log.append(move)
        assert events[0] == SquarePlaced(square, move.mark)
        assert (len(events) == 2) == (state.status is not Status.PLAYING)
        check_consistent(state)
        assert parse(render(state)) == state
        assert from_dict(json.loads(json.dumps(to_dict(state)))) == state
    assert 5 <= len(log) <= 9
    if state.status is Status.WON:
        assert state.winner is log[-1].mark
    replayed = new_game()
    for move in log:
        replayed, _ = apply_move(replayed, move)
    assert replayed == state


def test_forfeit_ends_the_game_for_the_other_mark_without_a_line():
    board = engine.parse("X..\n.O.\n...")
    new, events = engine.forfeit(board, engine.Mark.O)
    assert (new.status, new.winner, new.winning_line) == (engine.Status.WON, engine.Mark.X, None)
    assert events == (
        engine.Forfeited(engine.Mark.O),
        engine.GameEnded(engine.Status.WON, engine.Mark.X, None),
    )
    assert board.status is engine.Status.PLAYING  # the input is untouched


def test_a_forfeited_game_refuses_further_moves_and_round_trips():
    new, _ = engine.forfeit(engine.parse("X..\n...\n..."), engine.Mark.X)
    with pytest.raises(GameOverError):
        engine.apply_move(new, engine.Move(4, engine.Mark.O))
    with pytest.raises(GameOverError):
        engine.forfeit(new, engine.Mark.O)
    assert engine.from_dict(engine.to_dict(new)) == new


def test_a_stored_forfeit_that_disagrees_with_its_winner_is_refused():
    stored = engine.to_dict(engine.forfeit(engine.new_game(), engine.Mark.X)[0])
    with pytest.raises(engine.InvalidPositionError):
        engine.from_dict({**stored, "winner": "X"})
