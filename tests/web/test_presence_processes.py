"""Presence per server process: a process that stops beating is taken out of the counts once,
and only its own sockets (the rules behind tests/integration/test_presence_heal.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Player, Presence, Room, ServerProcess

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
        services.process_seen(process)
    services.presence_changed(room, ana, +1, "dead")
    services.presence_changed(room, ana, +1, "alive")
    services.presence_changed(room, bo, +1, "dead")
    services.presence_changed(room, None, +1, "dead")
    services.presence_changed(room, None, +1, "alive")
    assert counts(room) == ([2, 1], 2)
    silent_for("dead", EXPIRY - 1)
    assert services.forget_dead_processes(EXPIRY) == {}

    silent_for("dead", EXPIRY + 1)
    assert services.forget_dead_processes(EXPIRY) == {room.pk: True}
    assert counts(room) == ([1, 0], 1)
    assert services.forget_dead_processes(EXPIRY) == {}  # a second sweeper finds nothing
    assert counts(room) == ([1, 0], 1)
    assert list(ServerProcess.objects.values_list("pk", flat=True)) == ["alive"]

    # A late close from the process taken for dead takes nothing more out.
    services.presence_changed(room, ana, -1, "dead")
    services.sockets_closed({bo.pk: 1}, {room.pk: 1}, "dead")
    assert counts(room) == ([1, 0], 1)


def test_only_spectators_leaving_asks_for_the_count_alone(room):
    services.process_seen("dead")
    services.presence_changed(room, None, +2, "dead")
    silent_for("dead", EXPIRY + 1)
    assert services.forget_dead_processes(EXPIRY) == {room.pk: False}
    assert counts(room) == ([], 0)


def test_sockets_counted_under_no_process_row_are_taken_out(room, ana):
    services.presence_changed(room, ana, +1, "gone")  # its row already swept
    assert services.forget_dead_processes(EXPIRY) == {room.pk: True}
    assert counts(room)[0] == [0]
    assert not Presence.objects.exists()


def test_a_clean_stop_drops_its_row_and_counts_at_once(room, ana):
    services.process_seen("leaving")
    services.presence_changed(room, ana, +1, "leaving")
    services.presence_changed(room, None, +1, "leaving")
    services.process_stopped("leaving")
    assert counts(room) == ([0], 0)
    assert not ServerProcess.objects.exists() and not Presence.objects.exists()


def test_a_process_taken_for_dead_learns_it_at_its_next_beat():
    assert services.process_seen("slow") is False  # new
    assert services.process_seen("slow") is True
    ServerProcess.objects.filter(pk="slow").delete()  # swept by another process
    assert services.process_seen("slow") is False
