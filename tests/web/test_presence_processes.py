"""Presence per server process: a process that stops beating is taken out of the counts once,
and only its own sockets (the rules behind tests/integration/test_presence_heal.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.kinds.race import rules as race_rules
from games.protocol.messages import Command
from games.rooms import dispatch, joining, presence
from games.store.models import Move, Player, Presence, Room, ServerProcess

from .test_race import _go

pytestmark = pytest.mark.django_db

EXPIRY = 20


def counts(room: Room) -> tuple[list[int], int]:
    seats = Player.objects.filter(room=room).order_by("number")
    return [p.connections for p in seats], Room.objects.get(pk=room.pk).spectators


def silent_for(process: str, seconds: float) -> None:
    ServerProcess.objects.filter(pk=process).update(
        last_seen=timezone.now() - timedelta(seconds=seconds)
    )


def test_a_silent_process_leaves_the_counts_once_and_the_living_stay(room, ana, bo):
    for process in ("dead", "alive"):
        presence.process_seen(process)
    presence.presence_changed(room, ana, +1, "dead")
    presence.presence_changed(room, ana, +1, "alive")
    presence.presence_changed(room, bo, +1, "dead")
    presence.presence_changed(room, None, +1, "dead")
    presence.presence_changed(room, None, +1, "alive")
    assert counts(room) == ([2, 1], 2)
    silent_for("dead", EXPIRY - 1)
    assert presence.forget_dead_processes(EXPIRY) == {}

    silent_for("dead", EXPIRY + 1)
    assert presence.forget_dead_processes(EXPIRY) == {room.pk: True}
    assert counts(room) == ([1, 0], 1)
    assert presence.forget_dead_processes(EXPIRY) == {}  # a second sweeper finds nothing
    assert counts(room) == ([1, 0], 1)
    assert list(ServerProcess.objects.values_list("pk", flat=True)) == ["alive"]

    # A late close from the process taken for dead takes nothing more out.
    presence.presence_changed(room, ana, -1, "dead")
    presence.sockets_closed({bo.pk: 1}, {room.pk: 1}, "dead")
    assert counts(room) == ([1, 0], 1)


def test_only_spectators_leaving_asks_for_the_count_alone(room):
    presence.process_seen("dead")
    presence.presence_changed(room, None, +2, "dead")
    silent_for("dead", EXPIRY + 1)
    assert presence.forget_dead_processes(EXPIRY) == {room.pk: False}
    assert counts(room) == ([], 0)


def test_sockets_counted_under_no_process_row_are_taken_out(room, ana):
    presence.presence_changed(room, ana, +1, "gone")  # its row already swept
    assert presence.forget_dead_processes(EXPIRY) == {room.pk: True}
    assert counts(room)[0] == [0]
    assert not Presence.objects.exists()


def test_a_clean_stop_drops_its_row_and_counts_at_once(room, ana):
    presence.process_seen("leaving")
    presence.presence_changed(room, ana, +1, "leaving")
    presence.presence_changed(room, None, +1, "leaving")
    presence.process_stopped("leaving")
    assert counts(room) == ([0], 0)
    assert not ServerProcess.objects.exists() and not Presence.objects.exists()


def test_a_process_taken_for_dead_learns_it_at_its_next_beat():
    assert presence.process_seen("slow") is False  # new
    assert presence.process_seen("slow") is True
    ServerProcess.objects.filter(pk="slow").delete()  # swept by another process
    assert presence.process_seen("slow") is False


def test_a_racer_on_a_killed_process_is_away_once_it_is_swept():
    """The sweep tells the game, as a closing socket does: the grace period starts, and a race
    with no time limit ends without them (else it never ends, and nobody can restart it)."""
    room = joining.create_room("race", race_rules.validate_settings(9, 9, 10, True))
    ana, bo = (joining.join_room(room, name) for name in ("Ana", "Bo"))
    presence.process_seen("alive")
    presence.process_seen("dead")
    presence.presence_changed(room, ana, +1, "alive")
    presence.presence_changed(room, bo, +1, "dead")
    dispatch.play(room, ana, Command("start"))
    _go(room)
    silent_for("dead", EXPIRY + 1)
    assert presence.forget_dead_processes(EXPIRY) == {room.pk: True}
    race = race_rules.load(room.current_game().state)
    assert race.racer(bo.number).away_since is not None
    assert race.racer(ana.number).away_since is None
    moves = Move.objects.filter(game__room=room).values_list("action", "seat")
    assert list(moves)[-1] == ("away", bo.number)
