"""Pings and reactions over the room websocket: who hears them, and each refusal, which reaches
its sender alone and changes nothing for anyone else."""

import html
import json
import re

import pytest
from asgiref.sync import sync_to_async

from games.kinds import KINDS
from games.kinds.race import rules as race_rules
from games.kinds.tictactoe import rules as tictactoe_rules
from games.rooms import joining, signals
from games.store.models import Game
from games.web import events_schema
from tests.helpers.bots import bot, event
from tests.helpers.flags import make_flags_room
from tests.helpers.web import before_echo, connect, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)

PING = re.compile(r'<span class="ping" data-x="(\d+)" data-y="(\d+)" data-seat="(\d+)"')
REACTION = re.compile(r'<span class="reaction" data-emote="([a-z-]+)" data-seat="(\d+)"')
ERROR = r'id="room-error"[^>]*><span>'


@pytest.fixture(autouse=True)
def fresh_signal_budgets():
    signals.reset()
    yield
    signals.reset()


def signals_in(messages: list[str]) -> list[str]:
    """The pings and reactions among what a socket heard. The tests hear up to a pointer echo
    (`before_echo(..., hover=True)`): it goes through the channel layer as pings do, so under
    Redis too it comes after every ping sent before it, where a `sync`'s snapshot may not."""
    return [m for m in messages if 'class="ping"' in m or 'class="reaction"' in m]


async def test_a_ping_reaches_both_players_a_spectator_and_a_bot(room, ana, bo):
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    watcher_bot = await bot(room, None, how="query")
    await event(watcher_bot, "snapshot")
    await send(sockets[1], action="ping", x=6, y=2)
    for socket in sockets:
        message = await receive_until(socket, 'class="ping"')
        assert PING.search(message).groups() == ("6", "2", str(bo.number))
        assert "Bo pinged row 3, column 7" in message
    assert await event(watcher_bot, "ping") == {
        "type": "ping",
        "x": 6,
        "y": 2,
        "seat": bo.number,
        "name": "Bo",
    }
    for socket in [*sockets, watcher_bot]:
        await socket.disconnect()


async def test_a_reaction_reaches_every_screen_and_is_spoken(room, ana, bo):
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await send(sockets[0], action="react", emote="party")
    for socket in sockets:
        message = await receive_until(socket, 'class="reaction"')
        assert REACTION.search(message).groups() == ("party", str(ana.number))
        assert "Ana reacted: celebrating" in message
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"action": "ping", "x": 9, "y": 0}, r"Cell \(9, 0\) is off the board: x is 0 to 8"),
        ({"action": "ping", "x": 0, "y": -1}, r"Cell \(0, -1\) is off the board"),
        ({"action": "ping", "x": "a", "y": 0}, r'"x" must be a whole number'),
        ({"action": "react", "emote": "poo"}, r"Unknown emote 'poo': use one of thumbs-up"),
        ({"action": "react"}, r'Missing "emote"'),
        ({"action": "react", "emote": "wave", "text": "hi"}, r"Unknown field 'text'"),
    ],
)
async def test_bad_signals_are_refused_to_the_sender_alone(room, ana, bo, message, error):
    sender, other = await connect(room, ana), await connect(room, bo)
    await sender.send_to(text_data=json.dumps(message))
    assert re.search(error, html.unescape(await receive_until(sender, ERROR)))
    assert signals_in(await before_echo(other, hover=True)) == []
    await sender.disconnect()
    await other.disconnect()


async def test_spectators_may_neither_ping_nor_react(room, ana):
    player, watcher = await connect(room, ana), await connect(room, watch=True)
    for message in ({"action": "ping", "x": 1, "y": 1}, {"action": "react", "emote": "wave"}):
        await watcher.send_to(text_data=json.dumps(message))
        assert "Spectators cannot ping cells or react" in await receive_until(watcher, ERROR)
    assert signals_in(await before_echo(player, hover=True)) == []
    await player.disconnect()
    await watcher.disconnect()


async def test_pings_past_a_players_budget_are_refused_and_not_sent(room, ana, bo):
    sender, other = await connect(room, ana), await connect(room, bo)
    burst = signals.PER_PLAYER.count
    for x in range(burst + 1):
        await send(sender, action="ping", x=x, y=0)
    refusal = await receive_until(sender, ERROR)
    assert "Too many pings and reactions: a burst of 4, then 1 a second." in refusal
    heard = signals_in(await before_echo(other, hover=True))
    assert [PING.search(m).group(1) for m in heard] == [str(x) for x in range(burst)]
    await sender.disconnect()
    await other.disconnect()


def test_the_address_and_room_budgets_count_every_seat_and_give_back_what_they_refuse():
    """Seats of one address share its budget; a refusal by the room's gives the player's and
    the address's token back."""
    now = 1000.0
    for seat in range(signals.PER_ADDRESS.count):
        signals.take_budget(room_id=1000 + seat, player_id=seat, address="a", now=now)
    with pytest.raises(signals.Refused, match="from your address"):
        signals.take_budget(room_id=99, player_id=99, address="a", now=now)
    for seat in range(signals.PER_ROOM.count):
        signals.take_budget(room_id=1, player_id=100 + seat, address=f"b{seat}", now=now)
    with pytest.raises(signals.Refused, match="in this room"):
        signals.take_budget(room_id=1, player_id=500, address="c", now=now)
    for _ in range(signals.PER_PLAYER.count):  # player 500 and address c were given theirs back
        signals.take_budget(room_id=2, player_id=500, address="c", now=now)


async def test_a_bot_gets_an_ack_for_its_ping_and_an_error_for_a_bad_one(room, ana):
    socket = await bot(room, ana.token)
    await event(socket, "snapshot")
    await socket.send_to(text_data=json.dumps({"action": "ping", "x": 1, "y": 2, "id": 7}))
    replies = [await event(socket), await event(socket)]
    assert {"type": "ack", "action": "ping", "id": 7} in replies
    assert {"type": "ping", "x": 1, "y": 2, "seat": ana.number, "name": "Ana"} in replies
    await socket.send_to(text_data=json.dumps({"action": "react", "emote": "?", "id": 8}))
    refused = await event(socket, "error")
    assert refused["id"] == 8 and refused["error"].startswith("Unknown emote '?'")
    await socket.disconnect()


async def test_tic_tac_toe_takes_reactions_but_no_pings():
    settings = tictactoe_rules.validate_settings("human", "human")
    room = await sync_to_async(joining.create_room)("tictactoe", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    socket = await connect(room, ana)
    await send(socket, action="ping", x=0, y=0)
    assert "Pings point at a cell of a grid" in await receive_until(socket, ERROR)
    await send(socket, action="react", emote="wave")
    assert REACTION.search(await receive_until(socket, 'class="reaction"'))
    await socket.disconnect()


async def test_in_flags_both_players_and_a_spectator_see_a_ping_and_the_board_is_16_wide():
    room = await sync_to_async(make_flags_room)()
    ana, bo = [await sync_to_async(joining.join_room)(room, n) for n in ("Ana", "Bo")]
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await send(sockets[0], action="ping", x=15, y=15)
    for socket in sockets:
        assert PING.search(await receive_until(socket, 'class="ping"')).groups()[:2] == ("15", "15")
    await send(sockets[1], action="ping", x=16, y=0)
    assert "x is 0 to 15" in await receive_until(sockets[1], ERROR)
    for socket in sockets:
        await socket.disconnect()


async def test_a_racers_ping_reaches_their_own_screens_only():
    """A ping on a racer's board would show a rival (and, early, a spectator) where that board
    is safe: it goes to the pinger's own sockets alone. Reactions say nothing of a board."""
    settings = race_rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana, bo = [await sync_to_async(joining.join_room)(room, n) for n in ("Ana", "Bo")]
    ana_page, ana_bot = await connect(room, ana), await bot(room, ana.token)
    bo_page, bo_bot = await connect(room, bo), await bot(room, bo.token)
    watcher = await connect(room, watch=True)
    await event(ana_bot, "snapshot")
    await event(bo_bot, "snapshot")
    await send(ana_page, action="ping", x=3, y=4)
    assert PING.search(await receive_until(ana_page, 'class="ping"')).groups()[:2] == ("3", "4")
    assert (await event(ana_bot, "ping"))["seat"] == ana.number
    await send(bo_page, action="react", emote="clap")  # comes after the ping, if that came at all
    for socket in (bo_page, watcher):
        assert 'class="ping"' not in await receive_until(socket, 'class="(ping|reaction)"')
    kinds = []
    while not kinds or kinds[-1] != "reaction":
        kinds.append((await event(bo_bot))["type"])
    assert "ping" not in kinds
    game = await sync_to_async(lambda: Game.objects.filter(room=room).first())()
    assert game.version == 0  # presence: never a move
    for socket in (ana_page, ana_bot, bo_page, bo_bot, watcher):
        await socket.disconnect()


async def test_moves_door_refuses_pings(client, room, ana):
    response = await sync_to_async(client.post)(
        f"/api/rooms/{room.code}/moves",
        {"action": "ping", "x": 1, "y": 1},
        content_type="application/json",
        headers={"authorization": f"Bearer {ana.token}"},
    )
    assert response.status_code == 400
    assert "is presence, not a move: send it on the room websocket" in response.json()["error"]


def test_the_event_schema_names_the_emotes_the_socket_takes():
    schema = events_schema.assembled(KINDS.values())
    assert schema["$defs"]["emote"]["enum"] == list(signals.EMOTES)
