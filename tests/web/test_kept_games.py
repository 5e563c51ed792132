"""A room's next move starts from the game this process wrote last (`games.store.kept_games`), and the
write checks that copy against the row: a stale copy never writes, never answers anyone."""

import json

import pytest
from cachetools import LRUCache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine import minesweeper as engine
from games.kinds.table import Refused
from games.protocol.messages import CellMove
from games.rooms import dispatch, joining, playing
from games.store import kept_games
from games.store.models import Game, Move

from .helpers import current, hidden_cells, make_room

pytestmark = pytest.mark.django_db(transaction=True)  # the copy is kept on commit


def flags_of(room) -> dict[int, int]:
    return dict(engine.from_dict(current(room).state).flags)


def log_of(room) -> list[tuple[int, str, str]]:
    rows = Move.objects.filter(game=current(room)).order_by("seq")
    return list(rows.values_list("seq", "player__nickname", "action"))


def test_a_rooms_next_move_does_not_read_the_game_back(room, ana):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    x, y = hidden_cells(room)[0]
    with CaptureQueriesContext(connection) as queries:
        outcome = dispatch.play(room, ana, CellMove("flag", x, y))
    reads = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert reads == [], reads
    assert outcome.game.version == current(room).version == 2
    assert flags_of(room) == {x + y * 9: ana.number}


def test_a_copy_gone_stale_under_another_move_writes_nothing_and_the_move_goes_on_the_row(
    room, ana, bo
):
    """Another process's move (here: Bo's, with Ana's copy held back) changed the game."""
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    (x, y), (bo_x, bo_y) = hidden_cells(room)[:2]
    stale = kept_games.take(room.pk)
    dispatch.play(room, bo, CellMove("flag", bo_x, bo_y))
    kept_games.keep(stale.game, stale.state_text)
    outcome = dispatch.play(room, ana, CellMove("flag", x, y))
    assert outcome.game.version == current(room).version == 3
    assert flags_of(room) == {bo_x + bo_y * 9: bo.number, x + y * 9: ana.number}
    assert log_of(room) == [(1, "Ana", "reveal"), (2, "Bo", "flag"), (3, "Ana", "flag")]


def test_a_stale_copy_never_refuses_a_move_the_row_allows(room, ana, bo):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    x, y = hidden_cells(room)[0]
    dispatch.play(room, bo, CellMove("flag", x, y))
    flagged = kept_games.take(room.pk)  # says (x, y) is flagged: a reveal would be refused
    dispatch.play(room, bo, CellMove("flag", x, y))  # Bo takes the flag off
    kept_games.keep(flagged.game, flagged.state_text)
    dispatch.play(room, ana, CellMove("flag", x, y))  # on the copy: a flag taken off
    assert flags_of(room) == {x + y * 9: ana.number}
    assert current(room).version == 4


def test_a_stale_copy_never_lets_through_a_move_the_row_refuses(room, ana, bo):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    x, y = hidden_cells(room)[0]
    clear = kept_games.take(room.pk)  # says (x, y) is hidden and unflagged
    dispatch.play(room, bo, CellMove("flag", x, y))
    kept_games.keep(clear.game, clear.state_text)
    with pytest.raises(Refused, match="flagged"):
        dispatch.play(room, ana, CellMove("reveal", x, y))
    assert current(room).version == 2 and flags_of(room) == {x + y * 9: bo.number}


def test_a_state_edited_without_a_new_version_is_what_the_next_move_plays_on(room, ana):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    (x, y), (edit_x, edit_y) = hidden_cells(room)[:2]
    edited = {**current(room).state, "flags": {"7": [edit_x + edit_y * 9]}}
    Game.objects.filter(pk=current(room).pk).update(state=edited)  # an edit, version unchanged
    dispatch.play(room, ana, CellMove("flag", x, y))
    assert flags_of(room) == {edit_x + edit_y * 9: 7, x + y * 9: ana.number}


def test_a_copy_of_a_game_since_replaced_never_writes_to_it(room, ana):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    x, y = hidden_cells(room)[0]  # a flag there changes the old game and the new one alike
    old = kept_games.take(room.pk)
    playing.start_next_game(room, ana)
    kept_games.keep(old.game, old.state_text)
    outcome = dispatch.play(room, ana, CellMove("flag", x, y))
    assert outcome.game.number == current(room).number == 2
    assert Game.objects.get(pk=old.game.pk).version == 1  # the replaced game stays as it was
    assert log_of(room) == [(1, "Ana", "flag")]


def test_the_store_keeps_a_bounded_number_of_rooms_the_latest_moved(monkeypatch):
    monkeypatch.setattr(kept_games, "_kept", LRUCache(2))  # a store of two rooms
    rooms = [make_room() for _ in range(3)]
    for room in rooms:
        dispatch.play(room, joining.join_room(room, "Ana"), CellMove("reveal", 4, 4))
    assert kept_games.take(rooms[0].pk) is None
    assert [kept_games.take(room.pk).game.room_id for room in rooms[1:]] == [
        room.pk for room in rooms[1:]
    ]


def test_the_kept_copy_is_not_the_movers_own(room, ana):
    """The caller may go on reading its game (the live driver does) while the next move works
    on the kept one."""
    outcome = dispatch.play(room, ana, CellMove("reveal", 4, 4))
    kept = kept_games.take(room.pk)
    assert kept.game is not outcome.game and kept.game.version == outcome.game.version == 1
    assert json.loads(kept.state_text) == current(room).state == outcome.game.state
