"""The move path's hand-made SQL reads and writes rows exactly as the ORM would (on whichever
database the suite runs: SQLite here, PostgreSQL in CI)."""

import datetime

import pytest
from django.db import connection, transaction
from django.forms.models import model_to_dict
from django.utils import timezone

from games import rowsql, services
from games.messages import CellMove
from games.models import Game, Move

pytestmark = pytest.mark.django_db


def fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_the_current_game_is_the_newest_and_reads_as_the_orm_reads_it(room, ana):
    services.play(room, ana, CellMove("reveal", 4, 4))
    services.play(room, ana, CellMove("flag", 0, 0))
    services.start_next_game(room, ana)
    services.play(room, ana, CellMove("reveal", 2, 2))
    with transaction.atomic():
        mine = rowsql.lock_current_game(room.pk)
    theirs = Game.objects.filter(room=room).order_by("-number").first()
    assert mine.number == 2 and mine.version == 1
    assert fields(mine) == fields(theirs)
    assert mine.started_at.tzinfo is not None and isinstance(mine.state, dict)


def test_a_room_without_games_has_no_current_game(room):
    Game.objects.filter(room=room).delete()
    assert rowsql.lock_current_game(room.pk) is None


def test_the_lock_is_a_row_lock_where_the_database_has_one():
    sql = rowsql._current_game_sql(connection.vendor)
    assert sql.endswith(" FOR UPDATE") == connection.features.has_select_for_update


def test_an_update_writes_what_save_would(room):
    game = room.current_game()
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.UTC)
    game.state = {**game.state, "nested": {"list": [1, None, "x"], "quote": 'it\'s "fine"'}}
    game.status, game.version, game.started_at, game.finished_at = "won", 7, when, None
    game.params = {"must not": "be written"}
    rowsql.update(game, ["state", "status", "version", "started_at", "finished_at"])
    stored = Game.objects.get(pk=game.pk)
    assert stored.state == game.state and stored.status == "won" and stored.version == 7
    assert stored.started_at == when and stored.finished_at is None
    assert stored.params != game.params  # only the named fields


def test_an_insert_fills_defaults_and_creation_time_as_save_would(room, ana):
    game = room.current_game()
    before = timezone.now()
    rowsql.insert(Move(game=game, seq=1, player=ana, seat=ana.number, action="flag", x=3, y=0))
    (stored,) = Move.objects.filter(game=game)
    assert model_to_dict(stored, exclude=["id"]) == {
        "game": game.pk,
        "seq": 1,
        "player": ana.pk,
        "seat": ana.number,
        "action": "flag",
        "x": 3,
        "y": 0,
        "cell": None,
    }
    assert before <= stored.created_at <= timezone.now()
