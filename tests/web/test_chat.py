"""Room chat over the websocket: lines reach the screens that may read them, escaped; bad lines
and floods are refused to their sender alone, nothing kept; a race's racers never hear the
spectators while it runs, and do once it is over."""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from games.kinds.race import rules
from games.rooms import chat, joining
from games.store.models import ChatMessage, Player, Room
from tests.helpers.bots import bot, event
from tests.helpers.race import racing_pair
from tests.helpers.web import (
    TIMEOUT,
    before_echo,
    connect,
    receive_until,
    refused,
    send,
    settle,
    two_seats_and_a_watcher,
)

pytestmark = pytest.mark.django_db(transaction=True)

LINE = re.compile(
    r'<li class="chat-message" id="chat-\d+" data-channel="(\w+)" data-author="([^"]*)"'
    r'(?: data-spectator="\w{12}")?><b class="chat-author" dir="auto">[^<]*</b>'
    r'(?: <span class="badge guest" [^>]*>guest</span>)?'
    r'(?: <span class="chat-handle" [^>]*>(?:spectator )?#\w{4}</span>)?'
    r' <span class="chat-text" dir="auto">([^<]*)</span></li>'
)
"""A chat line; a spectator's carries their handle, by which the host names them (host controls)."""


def kept(room: Room) -> list[tuple[str, str, str]]:
    return [
        (m.author, m.channel, m.text) for m in ChatMessage.objects.filter(room=room).order_by("id")
    ]


async def test_a_players_line_reaches_players_and_spectators_and_a_spectators_line_too(
    room, ana, bo
):
    a, b, watcher = (
        await connect(room, ana),
        await connect(room, bo),
        await connect(room, watch=True),
    )
    await send(a, action="chat", text="  good luck  ")
    for socket in (a, b, watcher):
        line = LINE.search(await receive_until(socket, "chat-message"))
        assert line is not None and line.groups() == ("players", "Ana", "good luck")
    await send(watcher, action="chat", text="go Bo")
    for socket in (a, b, watcher):
        line = LINE.search(await receive_until(socket, "chat-message"))
        assert line is not None and line.groups() == ("spectators", "Spectator", "go Bo")
    assert await sync_to_async(kept)(room) == [
        ("Ana", "players", "good luck"),
        ("Spectator", "spectators", "go Bo"),
    ]
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_a_line_is_escaped_never_html(room, ana):
    a = await connect(room, ana)
    await send(a, action="chat", text='<img src=x onerror="alert(1)"> https://e.com')
    message = await receive_until(a, "chat-message")
    assert "<img" not in message and "<a " not in message
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; https://e.com" in message
    await a.disconnect()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        ("   \t ", "empty"),
        ("x" * 201, "too long: at most 200 characters, got 201"),
        ("line\nbreak", r"control character \(U\+000A\)"),
        ("a\u202eb", r"control character \(U\+202E\)"),
        (42, "must be a string"),
    ],
)
async def test_a_bad_line_is_refused_to_its_sender_alone_and_nothing_is_kept(
    room, ana, bo, text, error
):
    a, b, watcher = (
        await connect(room, ana),
        await connect(room, bo),
        await connect(room, watch=True),
    )
    await settle(a, b, watcher, online=2, watching=1)  # presence first: only the error follows
    await refused(a, [b, watcher], room, {"action": "chat", "text": text}, error)
    await refused(watcher, [a, b], room, {"action": "chat", "text": text}, error)
    assert await sync_to_async(kept)(room) == []
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_a_chat_message_with_a_moves_fields_or_no_text_is_refused_by_name(room, ana, bo):
    a, b = await connect(room, ana), await connect(room, bo)
    await settle(a, b, online=2)
    await refused(a, [b], room, {"action": "chat", "text": "hi", "x": 1}, "Unknown field &#x27;x")
    await refused(a, [b], room, {"action": "chat"}, "Missing &quot;text&quot;")
    for socket in (a, b):
        await socket.disconnect()


async def test_a_flood_is_refused_past_five_lines_and_the_socket_and_game_go_on(room, ana, bo):
    a, b = await connect(room, ana), await connect(room, bo)
    await settle(a, b, online=2)
    for n in range(chat.PER_SENDER.count):
        await send(a, action="chat", text=f"line {n}")
        await receive_until(b, f"line {n}<")
    await refused(a, [b], room, {"action": "chat", "text": "one too many"}, "Too many chat")
    assert len(await sync_to_async(kept)(room)) == chat.PER_SENDER.count
    await send(b, action="chat", text="Bo still talks")  # the limit is Ana's alone
    await receive_until(a, "Bo still talks")
    await send(a, action="reveal", x=4, y=4)  # and Ana still plays
    await receive_until(b, 'data-version="1"')
    for socket in (a, b):
        await socket.disconnect()


async def test_the_room_limit_holds_whoever_talks(room, monkeypatch):
    monkeypatch.setattr(chat, "PER_ROOM", chat.Limit("chat-room", 3, 10.0))
    watchers = [await connect(room, watch=True) for _ in range(4)]
    await settle(*watchers, online=0, watching=4)
    for n, socket in enumerate(watchers[:3]):
        await send(socket, action="chat", text=f"w{n}")
        await receive_until(watchers[3], f"w{n}<")
    for socket in watchers[:3]:
        await receive_until(socket, "w2<")
    await refused(watchers[3], watchers[:3], room, {"action": "chat", "text": "w3"}, "Too many")
    for socket in watchers:
        await socket.disconnect()


def _fill(room: Room, count: int) -> None:
    player = joining.join_room(room, "Cy")
    for n in range(count):
        chat._keep(room, None if n % 2 == 0 else player, f"old {n}")


async def test_the_last_fifty_lines_are_kept_and_come_with_the_snapshot(room):
    await sync_to_async(_fill)(room, 110)  # 55 a channel: each keeps its own last 50
    assert await sync_to_async(ChatMessage.objects.filter(room=room).count)() == 100
    socket = await connect(room, watch=True)
    lines = LINE.findall(socket.snapshot)  # each channel's log, oldest first
    for channel, first in (("players", 11), ("spectators", 10)):
        texts = [text for kind, _, text in lines if kind == channel]
        assert texts == [f"old {n}" for n in range(first, 110, 2)]
    await socket.disconnect()


async def test_a_bot_gets_chat_events_and_an_ack(room, ana, bo):
    a = await bot(room, ana.token)
    await send(a, action="chat", text="hello", id=7)
    got: dict[str, dict] = {}
    while len(got) < 2:  # the line may reach the room before the ack reaches its sender
        found = await event(a)
        if found["type"] in ("ack", "chat"):
            got[found["type"]] = found
    assert got["ack"] == {"type": "ack", "action": "chat", "id": 7}
    line = got["chat"]
    assert {k: line[k] for k in ("author", "channel", "text")} == {
        "author": "Ana",
        "channel": "players",
        "text": "hello",
    }
    await send(a, action="chat", text="", id=8)
    assert (await event(a, "error"))["id"] == 8
    await a.disconnect()


def _over(room: Room) -> bool:
    return Room.objects.get(pk=room.pk).current_game().is_over


async def test_racers_never_hear_the_spectators_while_the_race_runs_and_do_after(settings):
    room, a, b = await racing_pair()
    ana_bot = await bot(room, (await sync_to_async(lambda: room.players.get(number=0))()).token)
    watcher = await connect(room, watch=True)
    await send(watcher, action="chat", text="coach: top left is safe")
    await receive_until(watcher, "coach: top left")
    await send(a, action="chat", text="racer line")
    await receive_until(watcher, "racer line")
    for racer in (a, b):
        await receive_until(racer, "racer line")  # behind the spectator's line, had it come
        frames = await before_echo(racer)  # everything since, and the fresh snapshot's logs
        assert not any("coach" in frame for frame in frames)
    snapshot = (await connect(room, b.player)).snapshot
    assert "coach" not in snapshot and 'data-held="true"' in snapshot
    events = []
    while (found := await event(ana_bot))["type"] != "chat" or found["text"] != "racer line":
        events.append(found)
    assert not any("coach" in json.dumps(e) for e in events)
    # The API's reader is a racer's view too, while the race runs.
    texts = [line.text for line in await sync_to_async(chat_lines)(room)]
    assert texts == ["racer line"]
    await send(a, action="give_up")
    await receive_until(a, 'data-standing="(?!racing)')
    assert not await sync_to_async(_over)(room)
    await send(watcher, action="chat", text="coach again: Bo, go right")
    await receive_until(watcher, "coach again")  # said while Bo still races
    # Ana gave up: she watches with the spectators now, and hears them (issue 33).
    await receive_until(a, "coach again: Bo, go right")
    await send(b, action="give_up")
    for racer in (a, b):  # every frame until the spectators' lines come: the race ended first
        frames = []
        while "coach" not in (frame := await racer.receive_from(timeout=TIMEOUT)):
            frames.append(frame)
        assert any('data-phase="over"' in each for each in frames)
        assert 'data-held="false"' in frame and "coach again: Bo, go right" in frame
    assert await sync_to_async(_over)(room)
    for socket in (a, b, watcher, ana_bot):
        await socket.disconnect()


def chat_lines(room: Room):
    from games.broadcast import chat_view

    return chat_view.visible(room, player=True)


async def test_a_spectators_line_reaches_spectators_in_a_race_not_yet_started():
    """The lobby counts as the race: a line said there waits for its end all the same."""
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    a, watcher = await connect(room, ana), await connect(room, watch=True)
    await send(watcher, action="chat", text="lobby talk")
    await receive_until(watcher, "lobby talk")
    assert not any("lobby talk" in frame for frame in await before_echo(a))
    for socket in (a, watcher):
        await socket.disconnect()
    assert await database_sync_to_async(lambda: ChatMessage.objects.count())() == 1


async def test_a_muted_sender_hears_why_and_nobody_else_hears_anything(room, ana, bo):
    """Muted by the host (`games.rooms.host`) after their socket opened: the mute is read fresh."""
    a, b, watcher = await two_seats_and_a_watcher(room, ana, bo)
    await sync_to_async(Player.objects.filter(pk=ana.pk).update)(muted=True)
    await refused(a, [b, watcher], room, {"action": "chat", "text": "hi"}, "The host muted you")
    assert await sync_to_async(kept)(room) == []
    for socket in (a, b, watcher):
        await socket.disconnect()
