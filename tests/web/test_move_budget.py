"""Move budgets shared by both doors (the JSON API and the websocket), and the address every
per-address limit counts (an IPv6 /64 is one holder)."""

import json
import random

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import RequestFactory

from config.asgi import application
from games.limits import deployment
from games.protocol import flood
from games.protocol.flood import address_key
from games.store.models import Room
from games.web.room_limit import room_reservation

from .helpers import TIMEOUT, connect, make_room, receive_until, retry_after, send

pytestmark = pytest.mark.django_db(transaction=True)

CAP = 400
"""Requests a test sends at most before it gives up waiting for a refusal."""


@pytest.fixture(autouse=True)
def shipped_budgets(settings):
    """The budgets as shipped: conftest raises them for every other test."""
    settings.MOVES_BURST, settings.MOVES_PER_SECOND = 40, 20.0
    settings.ADDRESS_MOVES_BURST, settings.ADDRESS_MOVES_PER_SECOND = 100, 50.0


def flag(client, code: str, token: str):
    """A move that is always legal: flag (or unflag) the corner."""
    return client.post(
        f"/api/rooms/{code}/moves",
        {"action": "flag", "x": 0, "y": 0},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def until_refused(client, code: str, token: str):
    """(moves played, the first refusal) sending moves as fast as the client can."""
    for played in range(CAP):
        answer = flag(client, code, token)
        if answer.status_code != 200:
            return played, answer
    raise AssertionError(f"{CAP} moves in a row and no refusal")


def new_room(client) -> tuple[str, str]:
    body = {"game": "minesweeper", "preset": "beginner", "name": "Robo"}
    created = client.post("/api/rooms", body, content_type="application/json").json()
    return created["code"], created["player_token"]


def test_api_moves_past_a_seats_budget_get_429_json_and_retry_after(client, settings):
    # 2 a second, not 20: a busy machine's test client sends fewer than 20 a second, and the
    # burst would never run out.
    settings.MOVES_PER_SECOND = 2
    code, token = new_room(client)
    played, refused = until_refused(client, code, token)
    assert played >= settings.MOVES_BURST  # a burst goes through
    assert refused.status_code == 429 and "Too many moves" in refused.json()["error"]
    wait = retry_after(refused, '"moves";q=40', window=20)
    # A token back in 1/2 s; with REDIS_URL a moving window: when the burst's first ages out.
    assert wait == 1 or deployment() is not None
    assert Room.objects.get(code=code).games.get().version == played  # refused: not played


async def test_a_seats_socket_and_its_api_moves_draw_on_one_budget(client, settings):
    settings.MOVES_PER_SECOND = 0.01  # no token back while the test runs
    code, token = await sync_to_async(new_room)(client)
    room = await Room.objects.aget(code=code)
    robo = await room.players.aget()
    socket = await connect(room, robo)
    await sync_to_async(until_refused)(client, code, token)
    await send(socket, action="flag", x=1, y=1)
    assert "Too many moves" in await receive_until(socket, "Too many moves")
    await socket.disconnect()


def test_an_ipv6_64_is_one_address_and_ipv4_counts_each_address():
    prefix = f"2001:db8:{random.randrange(1 << 16):x}:{random.randrange(1 << 16):x}"
    assert address_key(f"{prefix}::1") == address_key(f"{prefix}:ffff:1:2:3") == f"{prefix}::/64"
    assert address_key(f"{prefix}::1") != address_key("2001:db8:ffff:ffff::1")
    assert address_key("198.51.100.7") != address_key("198.51.100.8")
    assert address_key("::ffff:198.51.100.7") == address_key("198.51.100.7")
    assert address_key("127.0.0.2") == address_key("127.0.0.3") == address_key("::1")
    assert address_key("unknown") == "unknown"


def test_room_creation_is_capped_per_ipv6_64(settings):
    """Counted at one fixed moment, so no minute can turn over between the requests."""
    settings.ROOMS_PER_MINUTE = 3
    prefix = f"2001:db8:{random.randrange(1 << 16):x}:{random.randrange(1 << 16):x}"

    def reserve(host: int) -> bool:
        request = RequestFactory().post("/rooms/", REMOTE_ADDR=f"{prefix}::{host:x}")
        with room_reservation(request, 0.0) as reservation:
            if reservation.decision.allowed:
                reservation.keep()
            return reservation.decision.allowed

    assert [reserve(host) for host in range(1, 4)] == [True] * 3
    assert not reserve(4)  # a fresh address in the same /64 is the same holder


async def test_sockets_per_address_are_capped_with_4429_counting_a_64_as_one(monkeypatch):
    monkeypatch.setattr(flood, "SOCKETS", flood.OpenSockets(2))
    room = await sync_to_async(make_room)()
    prefix = f"2001:db8:{random.randrange(1 << 16):x}:{random.randrange(1 << 16):x}"

    def from_host(host: int) -> WebsocketCommunicator:
        socket = WebsocketCommunicator(application, f"/ws/r/{room.code}/?format=json")
        socket.scope["client"] = (f"{prefix}::{host:x}", 50000)
        return socket

    first, second, third = from_host(1), from_host(2), from_host(3)
    for socket in (first, second):
        assert (await socket.connect(timeout=TIMEOUT))[0]
    assert (await third.connect(timeout=TIMEOUT))[0]  # accepted, to say why, then closed
    refused = json.loads(await third.receive_from(timeout=TIMEOUT))
    assert refused["type"] == "error" and "Too many open connections" in refused["error"]
    assert (await third.receive_output(timeout=TIMEOUT))["code"] == 4429
    await first.disconnect()
    again = from_host(4)
    assert (await again.connect(timeout=TIMEOUT))[0]
    assert json.loads(await again.receive_from(timeout=TIMEOUT))["type"] == "snapshot"
    for socket in (second, again):
        await socket.disconnect()
    assert flood.SOCKETS.counts == {}  # every socket gave its place back
