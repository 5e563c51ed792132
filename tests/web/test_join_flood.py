"""A room that anyone with its code joins thousands of times stays open (issue 14, item 2): joins
are capped per address and per room, the roster lists a bounded part of the seats, and no
message the room sends can outgrow the websocket's size limit on either way of sending."""

import re
import shlex
import time
from pathlib import Path

import pytest
import yaml
from asgiref.sync import sync_to_async
from autobahn.exception import PayloadExceededError
from autobahn.twisted.websocket import WebSocketServerFactory
from channels.testing import WebsocketCommunicator
from daphne.cli import CommandLineInterface
from daphne.ws_protocol import WebSocketProtocol
from django.test import Client
from twisted.internet.testing import StringTransport

from bench import procs
from config.asgi import application
from games.kinds.minesweeper import render as minesweeper_render
from games.kinds.roster import ROSTER_SHOWN
from games.patches import daphne_frames
from games.patches.daphne_frames import MESSAGE_LIMIT_BYTES
from games.rooms import joining
from games.store.models import Player, Room
from tests.helpers import servers
from tests.helpers.environment import ORIGIN
from tests.helpers.web import make_room, retry_after

ROOT = Path(__file__).resolve().parents[2]
ATTEMPTS = 300
"""Joins tried on one room: the seat cap takes the first, the rest are refused."""


def uncapped(room: Room) -> Room:
    """The room with the host's player cap at its highest: the hard cap is what is tried."""
    room.player_cap = joining.MAX_PLAYERS_PER_ROOM
    room.save(update_fields=["player_cap"])
    return room


def join(client: Client, code: str, name: str, address: str):
    return client.post(
        f"/api/rooms/{code}/join",
        {"name": name},
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def roster_names(html: str) -> list[str]:
    roster = re.search(r'<section id="roster".*?</section>', html, re.S).group(0)
    return re.findall(r'<li class="roster-player colour-\d+" data-seat="(\d+)"', roster)


def flood(settings) -> tuple[object, list[int], float]:
    """A 50x50 room joined `ATTEMPTS` times through the API from ten addresses a minute's worth
    each: (room, statuses, median seconds per join)."""
    room = uncapped(make_room(50, 50, 400))
    client = Client()
    statuses, took = [], []
    for n in range(ATTEMPTS):
        started = time.perf_counter()
        reply = join(client, room.code, f"Flood {n}", f"10.1.{n // settings.JOINS_PER_MINUTE}.1")
        took.append(time.perf_counter() - started)
        statuses.append(reply.status_code)
    return room, statuses, sorted(took)[len(took) // 2]


@pytest.mark.django_db(transaction=True)
async def test_a_join_flood_leaves_the_room_open_and_its_snapshot_small(settings):
    settings.JOINS_PER_MINUTE = 20
    room, statuses, median = await sync_to_async(flood)(settings)
    assert statuses == [200] * joining.MAX_PLAYERS_PER_ROOM + [409] * (
        ATTEMPTS - joining.MAX_PLAYERS_PER_ROOM
    )
    assert await Player.objects.filter(room=room).acount() == joining.MAX_PLAYERS_PER_ROOM
    assert median < 0.5

    socket = WebsocketCommunicator(
        application, f"/ws/r/{room.code}/?watch=1", headers=[(b"origin", ORIGIN.encode())]
    )
    connected, _ = await socket.connect(timeout=5)
    assert connected
    snapshot = await socket.receive_from(timeout=5)
    assert 'id="board"' in snapshot
    size = len(snapshot.encode())
    assert size < MESSAGE_LIMIT_BYTES / 2, size
    assert len(roster_names(snapshot)) == ROSTER_SHOWN
    more = joining.MAX_PLAYERS_PER_ROOM - ROSTER_SHOWN
    assert f'<li class="roster-more">and {more} more</li>' in snapshot
    await socket.disconnect()


@pytest.mark.django_db
def test_joins_are_capped_per_address_and_refusals_do_not_count(settings):
    settings.JOINS_PER_MINUTE = 3
    rooms = [make_room() for _ in range(5)]
    client = Client()
    full = uncapped(rooms[4])
    for n in range(joining.MAX_PLAYERS_PER_ROOM):
        joining.join_room(full, f"Seat {n}")
    assert join(client, full.code, "Late", "10.2.0.1").status_code == 409  # not counted
    codes = [join(client, room.code, "Ana", "10.2.0.1").status_code for room in rooms[:4]]
    assert codes == [200, 200, 200, 429]
    reply = join(client, rooms[3].code, "Ana", "10.2.0.1")
    assert reply.status_code == 429 and "wait a minute" in reply.json()["error"]
    retry_after(reply, '"joins";q=3', window=60)
    assert join(client, rooms[3].code, "Ana", "10.2.0.2").status_code == 200  # another address


@pytest.mark.django_db
def test_a_full_room_says_so_on_the_page_and_offers_to_watch(client):
    room = uncapped(make_room())
    for n in range(joining.MAX_PLAYERS_PER_ROOM):
        joining.join_room(room, f"Seat {n}")
    page = client.post(f"/r/{room.code}/join/", {"nickname": "Late"})
    assert page.status_code == 409
    html = page.content.decode()
    assert "This room is full" in html and f"/r/{room.code}/watch/" in html
    assert client.get(f"/r/{room.code}/watch/").status_code == 200  # spectators are not capped


@pytest.mark.django_db
def test_the_page_join_is_capped_per_address(settings):
    """From an address of its own: other tests' joins from 127.0.0.1 count in the same minute
    (in CI the counters live in Redis, shared by the whole run)."""
    settings.JOINS_PER_MINUTE = 1
    client = Client(REMOTE_ADDR="192.0.2.121")
    first, second = make_room(), make_room()
    assert client.post(f"/r/{first.code}/join/", {"nickname": "Ana"}).status_code == 302
    page = client.post(f"/r/{second.code}/join/", {"nickname": "Ana"})
    assert page.status_code == 429 and "Slow down" in page.content.decode()
    retry_after(page, '"joins";q=1', window=60)
    # The invite link with a remembered nickname takes no seat (a GET never does): it asks.
    asked = client.get(f"/r/{second.code}/")
    assert asked.status_code == 200 and 'value="Ana"' in asked.content.decode()
    assert not second.players.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("seats", [60, 2_000])
def test_the_snapshot_stays_bounded_whatever_the_roster(seats):
    """Seats made past the cap (an older room, or a cap raised later): the roster lists
    `ROSTER_SHOWN` of them, online ones first, and counts the rest."""
    room = make_room(50, 50, 400)
    Player.objects.bulk_create(
        Player(room=room, number=n, nickname=f"Player number {n:05d}", connections=n % 7 == 3)
        for n in range(seats)
    )
    html = minesweeper_render.snapshot_html(room, room.current_game())
    assert len(html.encode()) < MESSAGE_LIMIT_BYTES / 2
    shown = roster_names(html)
    assert len(shown) == ROSTER_SHOWN
    online = [n for n in range(seats) if n % 7 == 3]
    away = [n for n in range(seats) if n % 7 != 3]
    assert [int(seat) for seat in shown] == (online + away)[:ROSTER_SHOWN]  # online first
    assert f"and {seats - ROSTER_SHOWN:,} more" in html


def open_socket(limit: int) -> tuple[WebSocketProtocol, StringTransport]:
    """A websocket after its handshake, with Daphne's message and frame limits, into memory."""
    factory = WebSocketServerFactory()
    factory.setProtocolOptions(maxMessagePayloadSize=limit, maxFramePayloadSize=limit)
    protocol = WebSocketProtocol()
    protocol.factory = factory
    wire = StringTransport()
    protocol.makeConnection(wire)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.closeHandshakeTimeout = 0
    assert protocol.maxMessagePayloadSize == limit
    return protocol, wire


@pytest.mark.usefixtures("shortcuts_on")
def test_the_framed_path_keeps_the_same_size_limit_as_autobahn():
    """At the cap a message goes out either way; one byte over, autobahn refuses it and the
    frame written straight to the transport is not made either (the caller then sends the
    usual way, which refuses it)."""
    at_cap = "é" + "x" * (MESSAGE_LIMIT_BYTES - 2)
    protocol, wire = open_socket(MESSAGE_LIMIT_BYTES)
    assert daphne_frames.send(protocol, at_cap)
    assert wire.value().endswith(at_cap.encode())
    protocol.sendMessage(at_cap.encode())

    over = at_cap + "x"
    protocol, wire = open_socket(MESSAGE_LIMIT_BYTES)
    assert not daphne_frames.send(protocol, over)
    assert wire.value() == b""
    with pytest.raises(PayloadExceededError):
        protocol.sendMessage(over.encode())


def daphne_limits(args: list[str]) -> tuple[int, int]:
    parsed = CommandLineInterface().parser.parse_args(args)
    return parsed.websocket_max_message_size, parsed.websocket_max_frame_size


def test_every_daphne_start_sets_the_message_limit_on_purpose():
    expected = (MESSAGE_LIMIT_BYTES, MESSAGE_LIMIT_BYTES)
    makefile = (ROOT / "Makefile").read_text()
    limits = re.search(r"^WEBSOCKET_LIMITS := (.*)$", makefile, re.M).group(1)
    assert "$(WEBSOCKET_LIMITS)" in re.search(r"^run:.*?(?=^\S)", makefile, re.M | re.S).group(0)
    assert daphne_limits([*shlex.split(limits), "config.asgi:application"]) == expected
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = yaml.safe_load(re.search(r"^CMD (.*)$", dockerfile, re.M).group(1))
    assert daphne_limits(cmd[1:]) == expected
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("web1", "web2"):
        assert daphne_limits(compose["services"][name]["command"][1:]) == expected
    assert daphne_limits([*servers.WEBSOCKET_LIMITS, "config.asgi:application"]) == expected
    assert daphne_limits([*procs.WEBSOCKET_LIMITS, "config.asgi:application"]) == expected
