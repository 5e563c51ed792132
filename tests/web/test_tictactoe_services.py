"""Tic-tac-toe through the service layer: seats, refusals, computer turns, rematches, replays."""

import random

import pytest

from games.engine import tictactoe as engine
from games.engine.tictactoe_ai import Strategy, choose_move
from games.kinds.table import Invalid, Refused, SettingsError
from games.kinds.tictactoe import rules
from games.protocol.messages import CellMove, Command, SquareMove
from games.rooms import base, computers, dispatch, joining
from games.store.models import Game, Move, Room

pytestmark = pytest.mark.django_db


def make_room(x: str = "human", o: str = "human") -> Room:
    return joining.create_room("tictactoe", rules.validate_settings(x, o))


def current(room: Room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


def board(room: Room) -> engine.State:
    return engine.from_dict(current(room).state)


def mark(room, player, cell: int) -> base.Outcome:
    return dispatch.play(room, player, SquareMove(cell))


# Settings and seats ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "o"),
    [("human", "human"), ("human", "perfect"), ("random", "human"), ("perfect", "random")],
)
def test_every_pair_of_seat_kinds_is_valid(x, o):
    assert rules.validate_settings(x, o) == {"x": x, "o": o}


@pytest.mark.parametrize(
    ("x", "o", "message"),
    [
        ("robot", "human", "X must be one of human, random, perfect, got 'robot'"),
        ("human", "", "O must be one of human, random, perfect, got ''"),
        ("human", None, "O must be one of"),
        (1, "human", "X must be one of"),
    ],
)
def test_bad_seat_kinds_are_refused_with_the_choices(x, o, message):
    with pytest.raises(SettingsError, match=message):
        rules.validate_settings(x, o)


@pytest.mark.parametrize(
    ("x", "o", "x_seat", "o_seat"),
    [
        ("human", "human", 0, 1),
        ("human", "perfect", 0, None),
        ("perfect", "human", None, 0),  # the creator takes O when X is a computer
        ("random", "perfect", None, None),
    ],
)
def test_the_creator_takes_the_first_person_seat_and_the_next_person_the_other(
    x, o, x_seat, o_seat
):
    params = current(make_room(x, o)).params
    assert params == {
        "X": {"entrant": 1, "player": x, "seat": x_seat},
        "O": {"entrant": 2, "player": o, "seat": o_seat},
    }


def test_two_people_play_in_turn_and_every_move_is_logged():
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    for player, cell in [
        (ana, 4),
        (bo, 0),
        (ana, 2),
        (bo, 6),
        (ana, 3),
        (bo, 5),
        (ana, 8),
        (bo, 7),
    ]:
        mark(room, player, cell)
    outcome = mark(room, ana, 1)
    game = current(room)
    assert engine.render(board(room)) == "OXX\nXXO\nOOX"
    assert (game.status, game.version) == (Game.Status.DRAW, 9)
    assert outcome.applied.summary == {"square": 1, "mark": "X", "winner": None}
    assert game.finished_at is not None
    moves = list(Move.objects.filter(game=game).values_list("seq", "seat", "cell", "action"))
    assert moves[:2] == [(1, 0, 4, "mark"), (2, 1, 0, "mark")]
    assert [seq for seq, *_ in moves] == list(range(1, 10))


def test_a_win_is_stored_as_won_with_the_winning_mark():
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    for player, cell in [(ana, 0), (bo, 3), (ana, 1), (bo, 4)]:
        mark(room, player, cell)
    outcome = mark(room, ana, 2)
    assert current(room).status == Game.Status.WON
    assert outcome.applied.summary["winner"] == "X"
    assert board(room).winning_line == (0, 1, 2)


# Refusals: the right error, and nothing changes --------------------------------------------------


def refused_without_change(room, player, message, error, text):
    before = current(room)
    with pytest.raises(error, match=text):
        dispatch.play(room, player, message)
    after = current(room)
    assert (after.state, after.version) == (before.state, before.version)
    assert Move.objects.filter(game=after).count() == before.version


def test_moving_out_of_turn_is_refused():
    room = make_room()
    joining.join_room(room, "Ana")
    bo = joining.join_room(room, "Bo")
    refused_without_change(room, bo, SquareMove(4), Refused, "not your turn: X is to move")


def test_a_taken_square_is_refused():
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    mark(room, ana, 4)
    refused_without_change(room, bo, SquareMove(4), Refused, "Square 4 is already taken by X")


def test_a_third_person_has_no_seat_and_is_refused():
    room = make_room()
    joining.join_room(room, "Ana")
    joining.join_room(room, "Bo")
    cy = joining.join_room(room, "Cy")
    refused_without_change(room, cy, SquareMove(4), Refused, "no seat in this game")


def test_a_person_never_moves_for_the_computer():
    room = make_room("perfect", "human")
    ana = joining.join_room(room, "Ana")  # holds O; X (the computer) is to move
    refused_without_change(room, ana, SquareMove(4), Refused, "not your turn")


def test_moves_after_the_end_are_refused():
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    for player, cell in [(ana, 0), (bo, 3), (ana, 1), (bo, 4), (ana, 2)]:
        mark(room, player, cell)
    refused_without_change(room, bo, SquareMove(5), Refused, "game is over \\(X won\\)")


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (SquareMove(9), "Square 9 is off the board"),
        (SquareMove(-1), "Square -1 is off the board"),
        (CellMove("reveal", 1, 1), "tic-tac-toe room"),
    ],
)
def test_malformed_moves_are_invalid(message, text):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    refused_without_change(room, ana, message, Invalid, text)


def test_spectators_are_forbidden():
    room = make_room()
    refused_without_change(room, None, SquareMove(0), base.Forbidden, "Spectators")


# Computer turns ------------------------------------------------------------------------------


def test_the_computer_replies_at_once_through_play_computer_turns():
    room = make_room("human", "perfect")
    ana = joining.join_room(room, "Ana")
    mark(room, ana, 0)
    assert computers.computer_turn(room) == (1, 1)
    [outcome] = computers.play_computer_turns(room)
    game = current(room)
    assert game.version == 2
    assert outcome.applied.summary["mark"] == "O"
    assert board(room).squares[4] is engine.Mark.O  # the only answer to a corner that draws
    move = Move.objects.get(game=game, seq=2)
    assert (move.player, move.seat, move.cell) == (None, rules.COMPUTER_SEAT, 4)
    assert computers.computer_turn(room) is None
    assert computers.play_computer_turns(room) == []


def test_computer_against_computer_plays_to_the_end_at_once():
    room = make_room("random", "perfect")
    outcomes = computers.play_computer_turns(room)
    game = current(room)
    assert game.is_over
    assert len(outcomes) == game.version
    assert board(room).winner is not engine.Mark.X  # random never beats perfect


def test_a_stale_or_foreign_version_plays_nothing():
    room = make_room("perfect", "human")
    assert computers.computer_move(room, 3) is None
    assert computers.computer_move(room, 0, game=2) is None
    assert current(room).version == 0
    assert computers.computer_move(room, 0, game=1) is not None
    assert computers.computer_move(room, 0, game=1) is None  # a second driver: already played
    assert current(room).version == 1


def test_no_computer_move_on_a_persons_turn_or_in_minesweeper():
    room = make_room("human", "perfect")
    assert computers.computer_turn(room) is None
    assert computers.computer_move(room, 0) is None
    minesweeper = joining.create_room(
        "minesweeper", {"width": 9, "height": 9, "mines": 10, "no_guess": False}
    )
    assert computers.computer_turn(minesweeper) is None
    assert computers.computer_move(minesweeper, 0) is None


def test_computer_moves_replay_from_the_seed_and_the_move_log():
    room = make_room("random", "random")
    computers.play_computer_turns(room)
    game = current(room)
    state = engine.new_game()
    for move in Move.objects.filter(game=game).order_by("seq"):
        strategy = Strategy(game.params[state.turn.value]["player"])
        rng = random.Random(f"{game.seed}:{move.seq - 1}")
        assert choose_move(state, strategy, rng) == move.cell
        state, _ = engine.apply_move(state, engine.Move(move.cell, state.turn))
    assert engine.to_dict(state) == game.state


# Rematches -----------------------------------------------------------------------------------


def test_a_rematch_swaps_sides_and_x_still_opens():
    room = make_room("human", "human")
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    dispatch.play(room, bo, Command("new_game", game=1))
    params = current(room).params
    assert (params["X"]["seat"], params["O"]["seat"]) == (bo.number, ana.number)
    refused_without_change(room, ana, SquareMove(0), Refused, "not your turn: X is to move")
    mark(room, bo, 0)
    dispatch.play(room, ana, Command("new_game", game=2))
    params = current(room).params
    assert (params["X"]["seat"], params["O"]["seat"]) == (ana.number, bo.number)


def test_a_rematch_swaps_the_computer_too_and_it_opens():
    room = make_room("human", "perfect")
    ana = joining.join_room(room, "Ana")
    dispatch.play(room, ana, Command("new_game", game=1))
    game = current(room)
    assert game.params["X"] == {"entrant": 2, "player": "perfect", "seat": None}
    assert game.params["O"] == {"entrant": 1, "player": "human", "seat": 0}
    assert computers.computer_turn(room) == (2, 0)
    computers.play_computer_turns(room)
    assert board(room).squares.count(engine.Mark.X) == 1
    assert board(room).turn is engine.Mark.O


# Perfect play, every line ---------------------------------------------------------------------


def every_line_against_perfect(room: Room, person) -> set[engine.Mark | None]:
    """Results of every game the person can play against this room's perfect computer.

    Each position is set on the stored game and played on through `dispatch.play` and
    `computers.play_computer_turns`. The computer's reply depends only on the position (the rng
    is seeded from the game's seed and the version, which is the number of marks), so each
    position is expanded once; that keeps the walk to a few hundred positions.
    """
    game = current(room)
    results: set[engine.Mark | None] = set()
    seen: set[engine.Squares] = set()
    computers.play_computer_turns(room)  # the computer opens when it holds X
    stack = [board(room)]
    while stack:
        position = stack.pop()
        if position.squares in seen:
            continue
        seen.add(position.squares)
        for cell in engine.legal_moves(position):
            version = 9 - position.squares.count(None)
            Game.objects.filter(pk=game.pk).update(
                state=engine.to_dict(position), status=position.status.value, version=version
            )
            Move.objects.filter(game=game, seq__gt=version).delete()
            mark(room, person, cell)
            computers.play_computer_turns(room)
            after = board(room)
            if after.status is engine.Status.PLAYING:
                stack.append(after)
            else:
                results.add(after.winner)
    return results


@pytest.mark.parametrize(
    ("x", "o", "person_mark"), [("human", "perfect", "X"), ("perfect", "human", "O")]
)
def test_a_person_never_beats_the_perfect_computer_whatever_they_play(x, o, person_mark):
    room = make_room(x, o)
    person = joining.join_room(room, "Ana")
    results = every_line_against_perfect(room, person)
    assert engine.Mark(person_mark) not in results
    assert None in results  # some lines draw, so the walk really played games to the end
