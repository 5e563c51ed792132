"""`manage.py prune --older-than DAYS`: rooms idle that long go, with everything in them."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from games.protocol.messages import CellMove
from games.rooms import dispatch, joining, playing
from games.store.models import Game, Move, Player, Room

from .helpers import make_room

pytestmark = pytest.mark.django_db


def played_room(days_ago: float) -> Room:
    """A room with two players, a move and a finished game, all of it `days_ago` old, and the
    next game (empty) as old too."""
    room = make_room()
    ana = joining.join_room(room, "Ana")
    joining.join_room(room, "Bo")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    playing.start_next_game(room, ana)
    Game.objects.filter(room=room, number=1).update(status=Game.Status.LOST)
    age(room, days_ago)
    return room


def age(room: Room, days_ago: float) -> None:
    when = timezone.now() - timedelta(days=days_ago)
    Room.objects.filter(pk=room.pk).update(created_at=when)
    Player.objects.filter(room=room).update(joined_at=when)
    Game.objects.filter(room=room).update(created_at=when, started_at=when)
    Game.objects.filter(room=room, number=1).update(finished_at=when)
    Move.objects.filter(game__room=room).update(created_at=when)


def prune(*args: str) -> str:
    out = StringIO()
    call_command("prune", *args, stdout=out)
    return out.getvalue()


def test_prune_deletes_idle_rooms_with_their_players_games_and_moves():
    old = played_room(days_ago=40)
    recent = played_room(days_ago=2)
    moves = Move.objects.filter(game__room=old).count()
    assert moves >= 1

    output = prune("--older-than", "30")

    assert not Room.objects.filter(pk=old.pk).exists()
    assert not Player.objects.filter(room_id=old.pk).exists()
    assert not Game.objects.filter(room_id=old.pk).exists()
    assert not Move.objects.filter(game__room_id=old.pk).exists()
    assert Room.objects.filter(pk=recent.pk).exists()
    assert Move.objects.filter(game__room=recent).exists()
    assert output.strip() == (
        f"Deleted 1 rooms, 2 games, {moves} moves and 2 players idle for more than 30 days."
    )


def test_an_old_room_with_a_recent_move_is_kept():
    room = played_room(days_ago=40)
    Move.objects.filter(game__room=room).update(created_at=timezone.now())

    prune("--older-than", "30")

    assert Room.objects.filter(pk=room.pk).exists()


def test_an_old_room_with_a_recently_started_game_is_kept():
    room = played_room(days_ago=40)
    Game.objects.filter(room=room, number=2).update(created_at=timezone.now())

    prune("--older-than", "30")

    assert Room.objects.filter(pk=room.pk).exists()


def test_an_old_room_whose_game_finished_recently_is_kept():
    room = played_room(days_ago=40)
    Game.objects.filter(room=room, number=1).update(finished_at=timezone.now())

    prune("--older-than", "30")

    assert Room.objects.filter(pk=room.pk).exists()


def test_dry_run_counts_and_deletes_nothing():
    room = played_room(days_ago=40)

    assert prune("--older-than", "30", "--dry-run").strip() == (
        "1 rooms idle for more than 30 days"
    )
    assert Room.objects.filter(pk=room.pk).exists()


@pytest.mark.parametrize("value", ["0", "-3", "soon"])
def test_prune_refuses_a_bad_age(value):
    with pytest.raises(CommandError, match="--older-than"):
        call_command("prune", "--older-than", value)
