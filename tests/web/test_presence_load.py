"""Presence costs grow with the room, not with its square (issue 14, item 5).

Each socket opening used to send the whole roster to every socket of the room: N spectators
arriving cost N²/2 frames. Now each process tells a room its presence at most every
`rosters.INTERVAL`, and spectators coming and going send only their count.
"""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from games.live import rosters
from games.rooms import joining
from games.store.models import Presence, Room

from .helpers import TIMEOUT, connect, presence_after, presence_in, settle, spectators_in

pytestmark = pytest.mark.django_db(transaction=True)

SPECTATORS = 40


async def test_spectators_arriving_together_cost_far_fewer_than_n_squared_frames(room, ana):
    player = await connect(room, ana)
    await settle(player, online=1)
    watchers = await asyncio.gather(*(connect(room, watch=True) for _ in range(SPECTATORS)))
    counts, heard = player.presence, 0
    while counts != (1, SPECTATORS):
        counts = presence_after(await player.receive_from(timeout=TIMEOUT), counts)
        heard += 1
    while not await player.receive_nothing(timeout=rosters.INTERVAL * 2):  # none still on its way
        counts = presence_after(await player.receive_from(), counts)
        heard += 1
    assert counts == (1, SPECTATORS)
    # One socket heard a few presence frames a second, against one per spectator before (and
    # the room as a whole about SPECTATORS²/2).
    assert heard <= SPECTATORS / 4, heard
    await settle(*watchers, online=1, watching=SPECTATORS)  # the last word is right everywhere
    for socket in (player, *watchers):
        await socket.disconnect()


async def test_spectators_coming_and_going_send_only_their_count(room, ana):
    player = await connect(room, ana)
    await settle(player, online=1)
    watcher = await connect(room, watch=True)
    message = await player.receive_from()
    assert spectators_in(message) == 1 and presence_in(message) is None
    assert 'id="roster"' not in message and 'hx-swap-oob="true"' in message
    assert len(message) < 200, message
    await watcher.disconnect()
    message = await player.receive_from()
    assert spectators_in(message) == 0
    await player.disconnect()


async def test_a_roster_read_before_a_join_never_reaches_the_room_after_the_joins_own(room, ana):
    """Presence is read on the database thread and posted from there, as a join's roster is:
    the room hears the two in the order they were read. (Read there but sent through the layer
    from the event loop, the older roster, without Bo, came last in about half the runs.)"""
    player = await connect(room, ana)
    await settle(player, online=1)
    assert await player.receive_nothing(timeout=rosters.INTERVAL * 2)  # its own presence told
    rosters.changed(room.pk, player=True)
    await asyncio.sleep(0)  # the presence task asks the database thread first: its read is older
    await database_sync_to_async(joining.join_room)(room, "Bo")
    rosters_heard = []
    while not await player.receive_nothing(timeout=rosters.INTERVAL * 2):
        message = await player.receive_from()
        if presence_in(message) is not None:
            rosters_heard.append(message)
    assert len(rosters_heard) == 2  # the presence read before the join, then the join's
    assert ">Bo<" not in rosters_heard[0] and ">Bo<" in rosters_heard[-1]
    await player.disconnect()


@contextmanager
def _writes_to(table: str) -> Iterator[list[str]]:
    """The statements that change `table`, on the thread this runs on."""
    writes: list[str] = []

    def watch(execute, sql, params, many, context):
        if table in sql and sql.lstrip().split(" ", 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}:
            writes.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        yield writes


async def test_spectators_churning_write_the_database_a_few_times_not_twice_each(
    room, ana, monkeypatch
):
    """Spectators are counted with their room's presence message, a few times a second at most:
    each socket opening and closing used to be a transaction of its own (two for a socket that
    reconnects), the database thread's main work under a reconnecting crowd (issue 26). A longer
    interval here, so a slow machine's arrivals still fall into a few messages."""
    monkeypatch.setattr(rosters, "INTERVAL", 1.0)
    player = await connect(room, ana)
    await settle(player, online=1)
    watching = _writes_to(f'"{Presence._meta.db_table}"')
    writes = await database_sync_to_async(watching.__enter__)()  # the database thread's own
    try:
        watchers = await asyncio.gather(*(connect(room, watch=True) for _ in range(SPECTATORS)))
        await settle(player, online=1, watching=SPECTATORS)
        counted = await database_sync_to_async(_counted)(room.pk)
        assert counted == (SPECTATORS, SPECTATORS)  # the room's count and this process's part
        await asyncio.gather(*(socket.disconnect() for socket in watchers))
        await settle(player, online=1, watching=0)
        assert await database_sync_to_async(_counted)(room.pk) == (0, 0)
    finally:
        await database_sync_to_async(watching.__exit__)(None, None, None)
    # Before: one or two per socket opening and one per closing, 80 or more.
    assert 0 < len(writes) <= SPECTATORS / 4, writes
    await player.disconnect()


def _counted(room_id: int) -> tuple[int, int]:
    share = Presence.objects.filter(room_id=room_id, player__isnull=True).first()
    return Room.objects.get(pk=room_id).spectators, 0 if share is None else share.sockets


async def test_a_spectator_gone_before_its_count_was_written_never_reaches_the_database(
    room, ana, monkeypatch
):
    """Opened and closed between two presence messages: nothing to write, and the count stays
    right. (The interval longer than a socket's life on a slow machine.)"""
    monkeypatch.setattr(rosters, "INTERVAL", 2.0)
    player = await connect(room, ana)
    await settle(player, online=1)
    first = await connect(room, watch=True)
    await settle(player, online=1, watching=1)  # the room's first message in a while: at once
    watching = _writes_to(f'"{Presence._meta.db_table}"')
    writes = await database_sync_to_async(watching.__enter__)()
    try:
        passing = await connect(room, watch=True)  # within the interval: it waits for the next
        await passing.disconnect()
        await settle(player, online=1, watching=1)  # the next message, once the interval is over
    finally:
        await database_sync_to_async(watching.__exit__)(None, None, None)
    assert writes == []
    assert await database_sync_to_async(_counted)(room.pk) == (1, 1)
    await first.disconnect()
    await player.disconnect()
