"""A socket survives what its peer sends and what goes wrong inside, and always cleans up after
itself: presence counts and the relay's reference go with it, whichever way it ends (issue 14)."""

import asyncio
import logging

import pytest
from channels.db import database_sync_to_async

from games.broadcast import announce, local
from games.broadcast.outbox import group_name
from games.live import consumer, rosters
from games.rooms import autoplay, dispatch
from games.store.models import Player, Room
from tests.helpers.web import before_echo, connect, presence_after, receive_until, send, settle

pytestmark = pytest.mark.django_db(transaction=True)


def presence(room: Room) -> tuple[list[int], int]:
    seats = Player.objects.filter(room=room).order_by("number")
    return [p.connections for p in seats], Room.objects.get(pk=room.pk).spectators


@pytest.mark.parametrize("x", ["--1", "²", "1_000", " 1", "-", "1e3", "٣"])
async def test_a_malformed_hover_is_refused_and_changes_nothing(room, ana, x, caplog):
    socket = await connect(room, ana)
    watcher = await connect(room, watch=True)
    await settle(socket, watcher, online=1, watching=1)
    counted = await database_sync_to_async(presence)(room)
    await send(socket, action="hover", x=x, y=0)
    assert "whole number" in await receive_until(socket, 'id="room-error"')
    assert await database_sync_to_async(presence)(room) == counted == ([1], 1)
    assert local.sockets_in(group_name(room.pk)) == 2
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    await send(socket, action="flag", x=0, y=0)  # the connection goes on
    assert 'data-state="flagged"' in await receive_until(socket, 'id="game-meta"')
    await socket.disconnect()
    await watcher.disconnect()
    await rosters.told(room.pk)  # a spectator is written with the room's next presence message
    assert await database_sync_to_async(presence)(room) == ([0], 0)
    assert local.sockets_in(group_name(room.pk)) == 0


async def test_an_unexpected_error_answers_the_sender_and_the_socket_goes_on(
    room, ana, monkeypatch, caplog
):
    socket = await connect(room, ana)
    await settle(socket, online=1)
    play = dispatch.play

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(dispatch, "play", broken)
    for _ in range(3):
        await send(socket, action="reveal", x=1, y=1)
        error = await receive_until(socket, 'id="room-error"')
        assert consumer.SOMETHING_WENT_WRONG in error and "a bug" not in error
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 1 and "unexpected error" in tracebacks[0].getMessage()
    monkeypatch.setattr(dispatch, "play", play)
    await send(socket, action="flag", x=0, y=0)
    assert 'data-state="flagged"' in await receive_until(socket, 'id="game-meta"')
    assert await database_sync_to_async(presence)(room) == ([1], 0)
    await socket.disconnect()
    assert await database_sync_to_async(presence)(room) == ([0], 0)
    assert local.sockets_in(group_name(room.pk)) == 0


async def test_a_socket_that_fails_while_connecting_still_leaves_presence_and_relay(
    room, ana, monkeypatch
):
    """An error after the socket was counted (here: the computer driver, the last step of
    connecting) ends the consumer without its disconnect handler; the cleanup runs anyway."""

    def broken(*args, **kwargs):
        raise RuntimeError("a bug while connecting")

    monkeypatch.setattr(autoplay, "schedule", broken)
    watcher = await connect(room, watch=True)  # fails after its snapshot and its count
    with pytest.raises(RuntimeError):
        await watcher.receive_from(timeout=5)
    await rosters.told(room.pk)
    assert await database_sync_to_async(presence)(room) == ([0], 0)
    assert local.sockets_in(group_name(room.pk)) == 0


async def test_a_flood_is_logged_once_per_socket(room, ana, caplog):
    socket = await connect(room, ana)
    for _ in range(300):
        await send(socket, action="hover", x=0, y=0)
    while (await socket.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    for _ in range(100):  # what a flooding client still sends before its socket is gone
        await send(socket, action="sync")
    await socket.disconnect()
    flooding = [r for r in caplog.records if "flooding" in r.getMessage()]
    assert len(flooding) == 1


async def presence_told(room: Room) -> None:
    """Until this process has told the room all its presence news (no roster is on its way
    that would make the room's snapshot stale)."""
    rooms = rosters._rooms_by_loop.get(asyncio.get_running_loop(), {})
    for _ in range(200):
        # A room with spectators keeps its entry (their crowd, issue 33): its task is what tells.
        presence = rooms.get(room.pk)
        if presence is None or presence.task is None:
            return
        await asyncio.sleep(0.02)  # polling, bounded by the loop
    raise AssertionError("presence still being told")


def count_renders(monkeypatch) -> list[int]:
    rendered: list[int] = []
    snapshot_for = announce.snapshot_for

    def counted(room, seat, json=False):
        rendered.append(room.pk)
        return snapshot_for(room, seat, json=json)

    monkeypatch.setattr(announce, "snapshot_for", counted)
    return rendered


async def snapshot_of(socket) -> str:
    await send(socket, action="sync")
    return await receive_until(socket, 'id="board"')


async def test_syncs_arriving_together_get_one_snapshot_or_one_more(room, ana, monkeypatch):
    socket = await connect(room, ana)
    await settle(socket, online=1)
    await presence_told(room)
    rendered = count_renders(monkeypatch)
    for _ in range(30):
        await send(socket, action="sync")
    heard = await before_echo(socket)  # one more sync: its snapshot ends the list
    assert len([m for m in heard if 'id="board"' in m]) <= 2
    assert len(rendered) == 1  # nothing changed in the room: rendered once, then shared
    await socket.disconnect()


async def test_sockets_of_a_room_share_its_snapshot_until_the_room_changes(room, ana, monkeypatch):
    first, second = await connect(room, ana), await connect(room, watch=True)
    await settle(first, second, online=1, watching=1)
    await presence_told(room)
    rendered = count_renders(monkeypatch)
    await snapshot_of(first)
    await snapshot_of(second)
    assert len(rendered) == 1  # the second socket got the first one's
    await send(first, action="flag", x=0, y=0)
    await receive_until(second, 'data-state="flagged"')
    assert 'data-state="flagged"' in await snapshot_of(second)
    assert len(rendered) == 2  # the move made the kept one stale
    await first.disconnect()
    await second.disconnect()


async def test_a_kept_snapshot_shows_presence_as_it_is_now(room, ana):
    """The roster in a snapshot is not kept past a presence change (an existing page test
    checks snapshots for presence)."""
    first = await connect(room, ana)
    await settle(first, online=1)
    await snapshot_of(first)  # kept now
    watcher = await connect(room, watch=True)
    await settle(first, watcher, online=1, watching=1)
    assert presence_in_snapshot(await snapshot_of(first)) == (1, 1)
    await first.disconnect()
    await watcher.disconnect()


def presence_in_snapshot(snapshot: str) -> tuple[int, int]:
    return presence_after(snapshot, (-1, -1))
