"""When the channel layer (Redis) fails, moves still commit, sockets close in a way the page
understands, and the roster forgets them; pointer positions keep their trailing edge.

`DownLayer` is the in-memory layer with switches that make its calls fail the way channels-redis
does when Redis is gone (redis' ConnectionError). The real thing, with a real redis-server
stopped, is tests/integration/test_cluster.py.
"""

import asyncio
import logging
import re

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.test import RequestFactory
from redis.exceptions import ConnectionError as RedisConnectionError

from games import metrics
from games.live import consumer, sockets
from games.live.presence import forget_presence
from games.store.models import Move, Player, Room
from games.web.room_limit import room_reservation

from .helpers import connect, receive_until, send, settle

pytestmark = pytest.mark.django_db(transaction=True)

DOWN = RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


class DownLayer(InMemoryChannelLayer):
    """Fails where it is told to, as channels-redis fails without Redis."""

    failing: set[str] = set()

    def _check(self, call: str) -> None:
        if call in self.failing:
            raise DOWN

    async def group_add(self, group, channel):
        self._check("group_add")
        await super().group_add(group, channel)

    async def group_discard(self, group, channel):
        self._check("group_discard")
        await super().group_discard(group, channel)

    async def group_send(self, group, message):
        self._check("group_send")
        await super().group_send(group, message)

    async def receive(self, channel):
        message = await super().receive(channel)
        self._check("receive")  # checked once a message wakes it up
        return message


@pytest.fixture
def layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.DownLayer"}}
    DownLayer.failing = set()
    yield get_channel_layer()
    DownLayer.failing = set()


def connections(player: Player) -> int:
    return Player.objects.get(pk=player.pk).connections


async def counted(room: Room, players: list[int], spectators: int) -> None:
    """Until the sockets' presence is in the database (it follows the snapshot)."""

    def now() -> tuple[list[int], int]:
        seats = Player.objects.filter(room=room).order_by("number")
        return [p.connections for p in seats], Room.objects.get(pk=room.pk).spectators

    for _ in range(200):
        if await database_sync_to_async(now)() == (players, spectators):
            return
        await asyncio.sleep(0.02)  # polling the database, bounded by the loop
    raise AssertionError(f"presence is {await database_sync_to_async(now)()}")


def test_a_move_commits_and_answers_when_its_broadcast_fails(client, layer, caplog):
    created = client.post("/api/rooms", {"preset": "beginner"}, content_type="application/json")
    code, token = created.json()["code"], created.json()["player_token"]
    layer.failing = {"group_send"}
    with caplog.at_level(logging.WARNING, logger="games.broadcast.outbox"):
        moved = client.post(
            f"/api/rooms/{code}/moves",
            {"action": "reveal", "x": 4, "y": 4},
            content_type="application/json",
            headers={"Authorization": f"Bearer {token}"},
        )
    assert moved.status_code == 200 and moved.json()["version"] == 1
    assert Move.objects.filter(game__room__code=code).count() == 1
    room = Room.objects.get(code=code)
    assert [r.getMessage() for r in caplog.records] == [
        f"channel layer unavailable, room {room.pk} not told: {DOWN}"
    ]


async def test_a_handshake_without_the_layer_is_refused_at_once(room, ana, layer):
    layer.failing = {"group_add"}
    with pytest.raises(AssertionError):
        await connect(room, ana)  # refused: connect() asserts it was accepted
    assert await database_sync_to_async(connections)(ana) == 0


async def test_an_open_socket_that_loses_the_layer_closes_with_1013_and_leaves_the_roster(
    room, ana, layer
):
    socket = await connect(room, ana)
    await settle(socket, online=1)
    assert await database_sync_to_async(connections)(ana) == 1
    layer.failing = {"receive"}
    await layer.group_send(f"room-{room.pk}", {"type": "room.html", "html": "<p>wake</p>"})
    assert await socket.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": consumer.TRY_AGAIN_LATER,
    }
    assert await database_sync_to_async(connections)(ana) == 0


async def test_a_socket_closing_while_the_layer_is_down_still_leaves_the_roster(room, ana, layer):
    socket = await connect(room, ana)
    assert await database_sync_to_async(connections)(ana) == 1
    layer.failing = {"group_discard", "group_send"}
    await socket.disconnect()
    assert await database_sync_to_async(connections)(ana) == 0


async def test_a_stopping_process_takes_its_sockets_out_of_the_roster_once(room, ana, bo):
    old = [await connect(room, ana), await connect(room, ana), await connect(room, bo)]
    watcher = await connect(room, watch=True)
    await counted(room, [2, 1], 1)
    await forget_presence(sockets.open_sockets())  # what Daphne's SIGTERM runs
    assert await database_sync_to_async(connections)(ana) == 0
    assert await database_sync_to_async(connections)(bo) == 0
    assert (await Room.objects.aget(pk=room.pk)).spectators == 0
    again = await connect(room, ana)
    for socket in [*old, watcher]:
        await socket.disconnect()  # their own disconnect must not count them out twice
    assert await database_sync_to_async(connections)(ana) == 1
    await again.disconnect()


def test_room_creation_is_not_capped_when_the_cache_is_down(monkeypatch, settings, caplog):
    settings.ROOMS_PER_MINUTE = 1

    def down(*args, **kwargs):
        raise DOWN

    monkeypatch.setattr("games.limits.cache.add", down)
    request = RequestFactory().post("/rooms/")
    counted = metrics.WARNINGS.labels("cache_unavailable")
    before = counted._value.get()
    with caplog.at_level(logging.WARNING, logger="games.limits"):
        for _ in range(2):
            with room_reservation(request, 0.0) as reservation:
                assert reservation.decision.allowed
                reservation.keep()
    assert len(caplog.records) == 1  # one line per interval (`log_limit`); each one counted
    assert counted._value.get() - before == 2


async def test_a_pointer_that_moves_on_within_the_interval_is_sent_where_it_rests(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    await settle(first, second, online=2)
    for x in (1, 2, 3):  # well inside 100 ms: the first goes now, the last one after the wait
        await send(first, action="hover", x=x, y=0)
    cursors = [await receive_until(second, 'id="cursor-feed"') for _ in range(2)]
    assert [re.search(r'data-x="(\d)"', c)[1] for c in cursors] == ["1", "3"]
    # Nothing more of those three: the pointer's next position is the next thing heard of it.
    await send(first, action="hover", x=4, y=0)
    assert re.search(r'data-x="4"', await receive_until(second, 'id="cursor-feed"'))
    await first.disconnect()
    await second.disconnect()
