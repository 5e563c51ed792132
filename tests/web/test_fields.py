"""A game's state is JSON kept as text: `json` on PostgreSQL (not `jsonb`), and it reads back as
the same Python value through the ORM and through the move path's SQL."""

import pytest
from django.db import connection, transaction

from games.store import rowsql
from games.store.models import Game

pytestmark = pytest.mark.django_db

AWKWARD = {
    "quote": 'it\'s "quoted" \\ and <b>&amp;</b>',
    "unicode": "zoë 💣",
    "nested": {"list": [1, 2.5, None, True, "x"], "empty": {}},
    "big": 2**62 - 1,
    "10": "a numeric key",
    "2": "keys in their own order",
}


def column_type() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT data_type FROM information_schema.columns"
            " WHERE table_name = %s AND column_name = 'state'",
            [Game._meta.db_table],
        )
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL column type")
def test_the_state_column_is_json_text_on_postgresql():
    assert column_type() == "json"


def test_a_state_reads_back_as_written(room):
    game = room.current_game()
    game.state = AWKWARD
    game.save(update_fields=["state"])
    assert Game.objects.get(pk=game.pk).state == AWKWARD
    with transaction.atomic():
        assert rowsql.current_game(room.pk, locked=True).state == AWKWARD


def test_the_move_path_writes_what_the_orm_reads(room, ana):
    game = room.current_game()
    game.state, game.version = AWKWARD, 1
    move = {"game_id": game.pk, "seq": 1, "player_id": ana.pk, "seat": ana.number, "action": "flag"}
    assert rowsql.write_move(game, ["state", "version"], move, read_version=0)
    stored = Game.objects.get(pk=game.pk).state
    assert stored == AWKWARD and list(stored) == list(AWKWARD)
