"""Flags through the service layer: settings, seats, turns, claims, the bomb, refusals, the
computer, rematches and replays."""

import pytest

from games.engine import flags as engine
from games.kinds.flags import rules
from games.kinds.flags.kind import KIND
from games.kinds.table import Invalid, Refused, SettingsError
from games.protocol.messages import CellMove, Command, SquareMove
from games.rooms import base, computers, dispatch, joining
from games.store.models import Move
from tests.helpers.flags import board, current, make_flags_room, mines, safe

pytestmark = pytest.mark.django_db


def reveal(room, player, at) -> base.Outcome:
    return dispatch.play(room, player, CellMove("reveal", *at))


def bomb(room, player, at) -> base.Outcome:
    return dispatch.play(room, player, CellMove("bomb", *at))


@pytest.fixture
def room():
    return make_flags_room()


# Settings and seats ----------------------------------------------------------------------------


def test_the_standard_game_is_sixteen_by_sixteen_with_51_mines(room):
    state = board(room)
    assert (state.config.width, state.config.height, state.config.mines) == (16, 16, 51)
    assert state.config.to_win == 26
    assert current(room).params == {
        "X": {"entrant": 1, "player": "human", "seat": 0},
        "O": {"entrant": 2, "player": "human", "seat": 1},
        "mines": 51,
        "turn_seconds": 0,
    }


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        (("robot", "human"), "x", "X must be one of human, easy, strong, got 'robot'"),
        (("human", "perfect"), "o", "O must be one of human, easy, strong"),
        (("human", "easy", 50), "mines", "odd number from 1 to 99"),
        (("human", "easy", 101), "mines", "odd number"),
        (("human", "easy", 0), "mines", "odd number"),
        (("human", "easy", True), "mines", "odd number"),
        (("human", "easy", "51"), "mines", "odd number"),
        (("human", "easy", 51, 20), "turn_seconds", "0, 15, 30, 60"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(args, field, message):
    with pytest.raises(SettingsError, match=message) as error:
        rules.validate_settings(*args)
    assert error.value.field == field


def test_other_odd_mine_counts_make_their_board():
    room = make_flags_room(mines=11)
    assert board(room).config.mines == 11
    assert board(room).config.to_win == 6


def test_the_api_defaults_are_a_person_against_the_strong_computer():
    assert KIND.setup.options(game="flags").settings() == {
        "x": "human",
        "o": "strong",
        "mines": 51,
        "turn_seconds": 0,
    }


@pytest.mark.parametrize(
    ("x", "o", "sits"),
    [("human", "human", True), ("easy", "human", True), ("strong", "easy", False)],
)
def test_the_creator_sits_unless_two_computers_play(x, o, sits):
    assert rules.creator_sits(rules.validate_settings(x, o)) is sits


def test_when_the_computer_holds_x_the_first_person_holds_o():
    room = make_flags_room("easy", "human")
    assert current(room).params["O"]["seat"] == 0
    assert current(room).params["X"] == {"entrant": 1, "player": "easy", "seat": None}


# Turns and claims ------------------------------------------------------------------------------


def test_a_claim_keeps_the_turn_and_a_safe_reveal_passes_it(room, ana, bo):
    mine = mines(room)[0]
    outcome = reveal(room, ana, mine)
    assert outcome.applied.summary["claimed"] == 1
    state = board(room)
    assert state.turn is engine.Seat.X
    assert state.score(engine.Seat.X) == 1
    reveal(room, ana, safe(room))
    assert board(room).turn is engine.Seat.O
    moves = list(Move.objects.filter(game=current(room)).order_by("seq"))
    assert [(m.seq, m.action, m.seat) for m in moves] == [(1, "reveal", 0), (2, "reveal", 0)]
    assert current(room).version == 2


def test_a_reveal_out_of_turn_is_refused_and_changes_nothing(room, ana, bo):
    with pytest.raises(Refused, match="It is not your turn: X is to move."):
        reveal(room, bo, safe(room))
    assert current(room).version == 0


def test_an_open_cell_or_a_claimed_mine_cannot_be_revealed_again(room, ana, bo):
    mine = mines(room)[0]
    reveal(room, ana, mine)
    with pytest.raises(Refused, match=r"already a mine X claimed"):
        reveal(room, ana, mine)
    opened = safe(room)
    reveal(room, ana, opened)
    with pytest.raises(Refused, match=r"already open"):
        reveal(room, bo, opened)


def test_cells_off_the_board_are_invalid(room, ana):
    with pytest.raises(Invalid, match=r"Cell \(16, 0\) is off the board: x is 0 to 15"):
        reveal(room, ana, (16, 0))
    with pytest.raises(Invalid, match="off the board"):
        bomb(room, ana, (0, -1))


def test_other_kinds_moves_are_invalid_here(room, ana):
    with pytest.raises(Invalid, match="This is a Flags room"):
        dispatch.play(room, ana, CellMove("flag", 0, 0))
    with pytest.raises(Invalid, match="This is a Flags room"):
        dispatch.play(room, ana, SquareMove(4))


def test_minesweeper_rooms_refuse_a_bomb():
    from tests.helpers.web import make_room

    minesweeper = make_room()
    player = joining.join_room(minesweeper, "Ana")
    with pytest.raises(Invalid, match="This is a Minesweeper room"):
        dispatch.play(minesweeper, player, CellMove("bomb", 4, 4))


def test_a_third_person_has_no_seat_and_spectators_cannot_move(room, ana, bo):
    cy = joining.join_room(room, "Cy")
    with pytest.raises(Refused, match="no seat in this game"):
        reveal(room, cy, safe(room))
    with pytest.raises(base.Forbidden, match="Spectators can watch but not play"):
        reveal(room, None, safe(room))


# The bomb --------------------------------------------------------------------------------------


def test_the_bomb_is_refused_unless_behind(room, ana, bo):
    with pytest.raises(Refused, match=r"only for the player behind.*\(0 to 0\)"):
        bomb(room, ana, (8, 8))
    reveal(room, ana, mines(room)[0])
    with pytest.raises(Refused, match=r"\(1 to 0\)"):
        bomb(room, ana, (8, 8))


def test_the_bomb_claims_the_mines_in_its_square_once_and_ends_the_turn(room, ana, bo):
    reveal(room, ana, mines(room)[0])
    reveal(room, ana, safe(room))  # O to move, behind 0 to 1
    target = mines(room)[0]
    outcome = bomb(room, bo, target)
    state = board(room)
    claimed = outcome.applied.summary["claimed"]
    assert claimed >= 1
    assert state.score(engine.Seat.O) == claimed
    assert engine.Seat.O in state.bombs_used
    assert state.status is engine.Status.WON or state.turn is engine.Seat.X
    # Whatever the score is now, O's bomb is spent.
    while board(room).turn is engine.Seat.X and board(room).status is engine.Status.PLAYING:
        reveal(room, ana, safe(room))
    if board(room).status is engine.Status.PLAYING:
        with pytest.raises(Refused, match="You have used your bomb"):
            bomb(room, bo, safe(room))


# The end ---------------------------------------------------------------------------------------


def test_26_mines_win_and_the_game_then_refuses_moves(room, ana, bo):
    for at in mines(room)[:25]:
        reveal(room, ana, at)
    assert current(room).status == "playing"
    outcome = reveal(room, ana, mines(room)[0])
    assert outcome.applied.status == "won"
    game = current(room)
    assert game.status == "won" and game.finished_at is not None
    assert board(room).winner is engine.Seat.X
    with pytest.raises(Refused, match=r"The game is over \(X won\)"):
        reveal(room, ana, safe(room))


def test_the_move_log_replays_the_game(room, ana, bo):
    reveal(room, ana, mines(room)[0])
    reveal(room, ana, safe(room, number=False))
    reveal(room, bo, mines(room)[0])
    reveal(room, bo, safe(room))
    reveal(room, ana, mines(room)[3])
    game = current(room)
    seats = {p["seat"]: engine.Seat(mark) for mark, p in game.params.items() if mark in "XO"}
    moves = [
        engine.Move(engine.Action(m.action), m.x, m.y, seats[m.seat])
        for m in Move.objects.filter(game=game).order_by("seq")
    ]
    replayed = engine.replay(rules.config(game.params), game.seed, moves)
    assert engine.to_dict(replayed) == game.state


def test_a_rematch_swaps_sides(room, ana, bo):
    reveal(room, ana, mines(room)[0])
    dispatch.play(room, ana, Command("new_game"))  # mid-game: the host calls it off
    game = current(room)
    assert game.number == 2
    assert game.params["X"]["seat"] == 1 and game.params["O"]["seat"] == 0
    with pytest.raises(Refused, match="not your turn"):
        reveal(room, ana, safe(room))
    reveal(room, bo, safe(room))


# Computers -------------------------------------------------------------------------------------


def test_the_computer_replies_until_it_is_the_persons_turn_again():
    room = make_flags_room("human", "strong")
    ana = joining.join_room(room, "Ana")
    reveal(room, ana, safe(room))
    replies = computers.play_computer_turns(room)
    assert replies
    assert all(r.applied.summary["mark"] == "O" for r in replies)
    state = board(room)
    assert state.status is engine.Status.WON or state.turn is engine.Seat.X
    computer_moves = Move.objects.filter(game=current(room), player=None)
    assert computer_moves.count() == len(replies)


@pytest.mark.parametrize(("x", "o"), [("easy", "strong"), ("strong", "easy")])
def test_two_computers_play_a_whole_game(x, o):
    room = make_flags_room(x, o)
    for _ in range(400):
        turn = computers.computer_turn(room)
        if turn is None:
            break
        computers.computer_move(room, turn[1], game=turn[0])
    game = current(room)
    assert game.status == "won"
    state = board(room)
    assert max(state.scores.values()) >= 26
    assert sum(state.scores.values()) == len(state.claimed)
    assert rules.computers_only(game.params)
    assert computers.next_game_due(room) is not None


def test_a_finished_game_replays_move_by_move_with_its_ticks(room, ana, bo):
    from games.kinds.flags import history
    from games.kinds.table import COMPUTER_SEAT

    reveal(room, ana, mines(room)[0])
    reveal(room, ana, safe(room, number=False))  # O to move now
    game = current(room)
    game.state = engine.to_dict(engine.time_out(board(room))[0])  # O's time runs out
    game.version += 1
    game.save()
    Move.objects.create(game=game, seq=game.version, seat=COMPUTER_SEAT, action="tick")
    for at in mines(room)[:25]:
        reveal(room, ana, at)
    game = current(room)
    assert game.status == "won"
    line = history.timeline(game, list(Move.objects.filter(game=game).order_by("seq")), {})
    assert line.over and line.status == "won" and line.moves == game.version - 1  # no tick
    assert line.steps[0].line.startswith("claimed a mine at row")
    assert line.steps[1].line.startswith("opened ")
    assert line.steps[-1].line.endswith("X wins 26 to 0")
    assert line.rows_at(line.moves) == engine.render_full(board(room)).splitlines()
    assert "*" not in line.board_at(line.moves - 1)  # no mine shows before the end
    assert len(line.mines) == 51
    assert line.stats["scores"] == {"X": 26, "O": 0}
    assert line.stats["players"] == [{"seat": 0, "moves": 27, "mines": 26}]
