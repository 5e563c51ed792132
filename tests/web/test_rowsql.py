"""The move path's hand-made SQL reads and writes rows exactly as the ORM would (on whichever
database the suite runs: SQLite here, PostgreSQL in CI)."""

import datetime
import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.forms.models import model_to_dict
from django.utils import timezone

from games.engine import minesweeper as engine
from games.protocol.messages import CellMove
from games.rooms import dispatch, playing
from games.store import rows, rowsql
from games.store.models import Game, Move, Player, Room

pytestmark = pytest.mark.django_db


def fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_the_current_game_is_the_newest_and_reads_as_the_orm_reads_it(room, ana):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    state = engine.from_dict(room.current_game().state)
    hidden = min(state.field.mines)  # a mine is never revealed by the opening
    dispatch.play(room, ana, CellMove("flag", *state.grid.xy(hidden)))
    playing.start_next_game(room, ana)
    dispatch.play(room, ana, CellMove("reveal", 2, 2))
    theirs = Game.objects.filter(room=room).order_by("-number").first()
    for locked in (False, True):
        with transaction.atomic():
            mine = rowsql.current_game(room.pk, locked=locked)
        assert mine.number == 2 and mine.version == 1
        assert fields(mine) == fields(theirs)
        assert mine.started_at.tzinfo is not None and isinstance(mine.state, dict)


def test_a_room_without_games_has_no_current_game(room):
    """Every room has a game from its creation: none means the room went meanwhile, as a `get`
    would say."""
    Game.objects.filter(room=room).delete()
    with pytest.raises(Game.DoesNotExist):
        rowsql.current_game(room.pk, locked=False)


def test_the_lock_is_a_row_lock_where_the_database_has_one():
    sql = rows._first_sql(Game, ("room",), "number", connection.vendor, True)
    assert sql.endswith(" FOR UPDATE") == connection.features.has_select_for_update
    assert "FOR UPDATE" not in rows._first_sql(Game, ("room",), "number", connection.vendor, False)


def test_a_room_read_by_its_code_or_id_reads_as_the_orm_reads_it(room, ana):
    room.settings = {**room.settings, "note": 'it\'s "quoted"'}
    room.save()
    theirs = Room.objects.get(code=room.code)
    for mine in (rows.first(Room, code=room.code), rows.get(Room, id=room.pk)):
        assert type(mine) is Room and fields(mine) == fields(theirs)
        assert mine.created_at.tzinfo is not None and mine.settings["note"] == 'it\'s "quoted"'
        assert not mine._state.adding and mine._state.db == "default"
    assert fields(rows.first(Player, room=room.pk, token=ana.token)) == fields(ana)


def test_a_row_that_is_not_there_is_none_or_does_not_exist(room):
    assert rows.first(Room, code="no-such-room") is None
    assert rows.first(Player, room=room.pk, token="") is None
    with pytest.raises(Room.DoesNotExist):
        rows.get(Room, id=room.pk + 1000)


def a_move(game, player, seq=1) -> dict:
    return {
        "game_id": game.pk,
        "seq": seq,
        "player_id": player.pk,
        "seat": player.number,
        "action": "flag",
        "x": 3,
        "y": 0,
    }


def test_a_move_is_written_as_save_would_write_it(room, ana):
    game = room.current_game()
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.UTC)
    game.state = {**game.state, "nested": {"list": [1, None, "x"], "quote": 'it\'s "fine"'}}
    game.status, game.version, game.started_at, game.finished_at = "won", 1, when, None
    game.params = {"must not": "be written"}
    before = timezone.now()
    names = ["state", "status", "version", "started_at", "finished_at"]
    assert rowsql.write_move(game, names, a_move(game, ana), read_version=0)
    stored = Game.objects.get(pk=game.pk)
    assert stored.state == game.state and stored.status == "won" and stored.version == 1
    assert stored.started_at == when and stored.finished_at is None
    assert stored.params != game.params  # only the named fields
    (move,) = Move.objects.filter(game=game)
    assert model_to_dict(move, exclude=["id"]) == {
        "game": game.pk,
        "seq": 1,
        "player": ana.pk,
        "seat": ana.number,
        "action": "flag",
        "x": 3,
        "y": 0,
        "cell": None,
    }
    assert before <= move.created_at <= timezone.now()


def test_a_move_on_a_game_changed_since_it_was_read_writes_nothing(room, ana):
    """Another move landed between the read and the write: neither the game nor the log moves."""
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    stale = room.current_game()
    state = engine.from_dict(stale.state)
    hidden = next(c for c in range(state.grid.size) if c not in state.revealed)
    width = state.config.width
    dispatch.play(room, ana, CellMove("flag", hidden % width, hidden // width))
    before = Game.objects.get(pk=stale.pk)
    stale.state, stale.version = {"overwritten": True}, stale.version + 1
    assert not rowsql.write_move(stale, ["state", "version"], a_move(stale, ana, seq=2), 1)
    after = Game.objects.get(pk=stale.pk)
    assert (after.state, after.version) == (before.state, before.version) == (before.state, 2)
    assert list(Move.objects.filter(game=stale).values_list("seq", flat=True)) == [1, 2]
    assert Move.objects.get(game=stale, seq=2).action == "flag"


@pytest.mark.django_db(transaction=True)  # moves keep their games on commit (`kept_games`)
def test_the_state_is_written_as_json_dumps_writes_it_parts_kept_or_not(room, ana):
    """A flag reuses the text of the revealed cells the move before wrote; every stored state
    is still `json.dumps` of the state, to the byte."""
    column = "CAST(state AS text)" if connection.vendor == "postgresql" else "state"
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    state = engine.from_dict(room.current_game().state)
    hidden = [cell for cell in range(state.grid.size) if cell not in state.revealed]
    for cell in hidden[:3] + hidden[:1]:  # three flags, then one taken off
        dispatch.play(room, ana, CellMove("flag", *state.grid.xy(cell)))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {column} FROM games_game WHERE id = %s", [room.current_game().pk]
            )
            (text,) = cursor.fetchone()
        assert text == json.dumps(room.current_game().state)


@pytest.mark.django_db(transaction=True)  # outside a test's transaction: the write's own
def test_a_failed_write_outside_a_transaction_rolls_back_and_raises_djangos_error(room, ana):
    """The write runs on the driver's cursor: a failing INSERT (a seq already in the log) takes
    the game's UPDATE back with it, comes out as Django's IntegrityError, and leaves the
    connection out of any transaction, ready for the next move."""
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    game = room.current_game()
    game.state, game.version = {"never": "stored"}, 2
    with pytest.raises(IntegrityError):
        rowsql.write_move(game, ["state", "version"], a_move(game, ana, seq=1), read_version=1)
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == 1 and "never" not in stored.state
    assert connection.get_autocommit() and not connection.in_atomic_block
    if connection.vendor == "sqlite":
        assert not connection.connection.in_transaction
    assert rowsql.write_move(game, ["state", "version"], a_move(game, ana, seq=2), read_version=1)
    assert Game.objects.get(pk=game.pk).state == {"never": "stored"}
