"""A room's messages reach a process once and every socket of the room there, in order.

Sockets here are stand-ins that record what they are sent; the layer is the configured one
(in-memory here, Redis pub/sub in CI), except where a test counts group members, which only the
in-memory layer shows.
"""

import asyncio
import logging

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import server_loop
from games.broadcast import announce, local, outbox
from games.live import relay
from games.protocol import audiences
from tests.helpers.servers import unique_name
from tests.helpers.web import TIMEOUT, make_room

GROUP = unique_name("room-relay-test")
"""A run's own group, as its layer prefix is its own: runs sharing one Redis never cross."""


class Socket:
    def __init__(self, audience: tuple[str, ...] = audiences.order(None)) -> None:
        self.audience = audience
        self.received: list[str] = []
        self.told: list[audiences.Control] = []
        self.arrived = asyncio.Event()

    def deliver_now(self, html: str) -> bool:
        return False  # as a socket that is held or delayed: `deliver`

    async def deliver(self, html: str) -> None:
        self.received.append(html)
        self.arrived.set()

    async def control(self, control: audiences.Control) -> None:
        self.told.append(control)
        self.received.append(f"told {control}")
        self.arrived.set()

    async def until(self, count: int) -> list[str]:
        async with asyncio.timeout(TIMEOUT):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.received


class Broken(Socket):
    async def deliver(self, html: str) -> None:
        raise RuntimeError("this socket is broken")


async def publish(*texts: str) -> None:
    for text in texts:
        await get_channel_layer().group_send(GROUP, {"type": "room.html", "html": text})


async def test_each_socket_takes_its_own_text_of_a_message_with_one_per_audience():
    """A race's message: the mover's board, the others' progress, the spectators' full view,
    and JSON for bots; a plain message goes to every page and to no bot."""
    mover, racer = Socket(audiences.order(1)), Socket(audiences.order(2))
    spectator, bot = Socket(audiences.order(None)), Socket(audiences.order(2, json=True))
    for socket in (mover, racer, spectator, bot):
        await relay.join(GROUP, socket)
    texts = {"seat:1": "own", "players": "progress", "spectators": "full", "json": "{}"}
    await get_channel_layer().group_send(GROUP, {"type": "room.html", "texts": texts})
    await publish("for pages")
    assert await mover.until(2) == ["own", "for pages"]
    assert await racer.until(2) == ["progress", "for pages"]
    assert await spectator.until(2) == ["full", "for pages"]
    await publish("again")  # the bot hears no page's text, so it waits for its own
    await get_channel_layer().group_send(GROUP, {"type": "room.html", "texts": {"all": "x"}})
    await get_channel_layer().group_send(GROUP, {"type": "room.html", "texts": texts})
    assert await bot.until(2) == ["{}", "{}"]
    for socket in (mover, racer, spectator, bot):
        await relay.leave(GROUP, socket)


async def test_a_control_reaches_the_sockets_it_names_as_a_control_and_never_as_a_text():
    """A kick: the kicked seat's page and bot are told (a control, through the layer as a plain
    string), not sent the notice every other player reads; a key of both is the control's."""
    kicked, bot = Socket(audiences.order(3)), Socket(audiences.order(3, json=True))
    other, spectator = Socket(audiences.order(1)), Socket(audiences.order(None))
    for socket in (kicked, bot, other, spectator):
        await relay.join(GROUP, socket)
    texts = {"players": "notice", "seat:3": "menu", "json": "{}"}
    controls = {"seat:3": audiences.Control.KICKED, "json:seat:3": audiences.Control.KICKED}
    await get_channel_layer().group_send(GROUP, outbox.message_of(texts, controls))
    await publish("next")
    assert await other.until(2) == ["notice", "next"]
    assert await kicked.until(2) == ["told kicked", "next"]
    assert kicked.told == [audiences.Control.KICKED] and bot.told == [audiences.Control.KICKED]
    assert isinstance(kicked.told[0], audiences.Control)
    assert await spectator.until(1) == ["next"]
    for socket in (kicked, bot, other, spectator):
        await relay.leave(GROUP, socket)


@pytest.fixture
def local_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return get_channel_layer()


async def test_every_socket_of_the_room_gets_every_message_in_order():
    sockets = [Socket() for _ in range(3)]
    for socket in sockets:
        await relay.join(GROUP, socket)
    await publish("one", "two", "three")
    for socket in sockets:
        assert await socket.until(3) == ["one", "two", "three"]
    for socket in sockets:
        await relay.leave(GROUP, socket)


async def test_a_process_is_one_member_of_the_group_while_it_has_sockets_there(local_layer):
    first, second = Socket(), Socket()
    await asyncio.gather(relay.join(GROUP, first), relay.join(GROUP, second))
    assert len(local_layer.groups[GROUP]) == 1 and local.sockets_in(GROUP) == 2
    await relay.leave(GROUP, first)
    assert len(local_layer.groups[GROUP]) == 1
    await relay.leave(GROUP, second)
    assert GROUP not in local_layer.groups and local.sockets_in(GROUP) == 0
    again = Socket()
    await relay.join(GROUP, again)  # the room's next socket joins afresh
    await publish("back")
    assert await again.until(1) == ["back"]
    await relay.leave(GROUP, again)


async def test_a_socket_that_left_gets_nothing_more():
    staying, leaving = Socket(), Socket()
    await relay.join(GROUP, staying)
    await relay.join(GROUP, leaving)
    await publish("both")
    await leaving.until(1)
    await relay.leave(GROUP, leaving)
    await publish("one")
    assert await staying.until(2) == ["both", "one"]
    assert leaving.received == ["both"]
    await relay.leave(GROUP, staying)


async def test_a_broken_socket_does_not_keep_the_message_from_the_others(caplog):
    broken, healthy = Broken(), Socket()
    await relay.join(GROUP, broken)
    await relay.join(GROUP, healthy)
    with caplog.at_level(logging.ERROR, logger="games.live.relay"):
        await publish("one", "two")
        assert await healthy.until(2) == ["one", "two"]
    assert "could not forward a message" in caplog.text
    for socket in (broken, healthy):
        await relay.leave(GROUP, socket)


async def test_a_group_that_cannot_be_joined_refuses_the_socket_and_keeps_nothing(
    local_layer, monkeypatch
):
    async def down(group, channel):
        raise OSError("Connection refused")

    monkeypatch.setattr(local_layer, "group_add", down)
    with pytest.raises(OSError, match="Connection refused"):
        await relay.join(GROUP, Socket())
    assert local.sockets_in(GROUP) == 0
    monkeypatch.undo()
    socket = Socket()
    await relay.join(GROUP, socket)  # the layer is back: the next socket subscribes
    await publish("works")
    assert await socket.until(1) == ["works"]
    await relay.leave(GROUP, socket)


async def test_with_another_member_in_the_group_the_layer_carries_it_and_here_hears_it_once(
    local_layer,
):
    """Another process in the room (a channel of its own in the group): it gets the message
    through the layer; the copy the layer brings back here is not heard twice."""
    here = Socket()
    await relay.join(GROUP, here)
    elsewhere = await local_layer.new_channel()
    await local_layer.group_add(GROUP, elsewhere)
    message = {"type": "room.html", "html": "move"}
    await local.hear_here(GROUP, message)
    await local_layer.group_send(GROUP, message)  # as the outbox then does
    assert (await local_layer.receive(elsewhere))["html"] == "move"
    await publish("next")  # from elsewhere: after the echo, in order
    assert await here.until(2) == ["move", "next"]
    await local_layer.group_discard(GROUP, elsewhere)
    await relay.leave(GROUP, here)


async def test_the_layers_echo_of_a_message_heard_here_is_skipped():
    """On the configured layer (Redis pub/sub in CI, where every process hears its own
    messages back): each socket here gets a message heard here once."""
    socket = Socket()
    await relay.join(GROUP, socket)
    message = {"type": "room.html", "html": "once"}
    await local.hear_here(GROUP, message)
    await get_channel_layer().group_send(GROUP, message)  # as the outbox then does
    await publish("after")
    assert await socket.until(2) == ["once", "after"]
    assert socket.received == ["once", "after"]
    await relay.leave(GROUP, socket)


async def test_a_room_without_sockets_here_is_left_to_the_layer():
    message = {"type": "room.html", "html": "x"}
    await local.hear_here(GROUP, message)
    assert "origin" not in message  # not heard here: a socket that joins hears the layer's copy


class Recording(Socket):
    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    async def deliver(self, html: str) -> None:
        self.events.append(f"socket {html}")
        await super().deliver(html)


async def test_with_one_process_the_sockets_here_come_before_the_layers_copy(
    local_layer, monkeypatch
):
    """The in-memory layer reaches no other process, so no one waits on its copy: the outbox
    hands a message to the sockets here first, and the layer still carries it to any channel
    in the group. With a layer between processes, its copy goes first (`_everywhere`)."""
    events: list[str] = []
    send = local_layer.group_send

    async def recorded(group, message):
        events.append(f"layer {message['html']}")
        await send(group, message)

    monkeypatch.setattr(local_layer, "group_send", recorded)
    here = Recording(events)
    await relay.join(GROUP, here)
    elsewhere = await local_layer.new_channel()
    await local_layer.group_add(GROUP, elsewhere)
    await outbox._everywhere(GROUP, {"type": "room.html", "html": "move"})
    assert events == ["socket move", "layer move"]
    assert (await local_layer.receive(elsewhere))["html"] == "move"
    await publish("next")
    assert await here.until(2) == ["move", "next"]  # the layer's copy not heard twice
    await local_layer.group_discard(GROUP, elsewhere)
    await relay.leave(GROUP, here)


@pytest.mark.django_db(transaction=True)
async def test_with_one_process_a_roster_nobody_can_hear_is_not_rendered(local_layer):
    """A seat taken in a room no socket has opened here: nobody can hear its roster, and a
    socket that opens the room later reads the seat in its snapshot. Once a socket is there, the
    roster is rendered and reaches it. (A layer between processes cannot tell: it renders.)"""
    room = await database_sync_to_async(make_room)()
    group = outbox.group_name(room.pk)
    server_loop.note(asyncio.get_running_loop())  # as the server notes it for each connection

    def rendering_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            announce.roster(room.pk)
        return len(queries)

    assert await database_sync_to_async(rendering_queries)() == 0
    socket = Socket()
    await relay.join(group, socket)
    assert await database_sync_to_async(rendering_queries)() > 0
    assert 'id="roster"' in (await socket.until(1))[0]
    await relay.leave(group, socket)
    assert await database_sync_to_async(rendering_queries)() == 0
