""" "On now" cannot be bought (issue 33, item 5): a crowd is counted by distinct client addresses
(an IPv6 /64 as one), not sockets, and a pick made for its crowd is dropped once it has gone."""

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache

from games.live import rosters
from games.rooms import joining
from games.store.models import Player, Presence, Room
from games.web import on_now

from .helpers import connect, make_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_pick():
    on_now.forget()
    cache.delete(on_now.PICK_KEY)
    yield
    on_now.forget()


def played(name: str) -> Room:
    """A public room with its player online, nobody watching yet."""
    room = make_room()
    joining.join_room(room, name)
    Player.objects.filter(room=room).update(connections=1)
    return room


def featured_code() -> str | None:
    on_now.forget()
    pick = on_now.featured()
    return None if pick is None else pick.code


def crowd(room: Room) -> int:
    return sum(Presence.objects.filter(room=room).values_list("crowd", flat=True))


async def watch(room: Room, addresses: list[str]) -> list:
    sockets = [await connect(room, watch=True, address=address) for address in addresses]
    await rosters.told(room.pk)
    return sockets


async def test_sixty_sockets_of_one_address_are_a_crowd_of_one():
    real = await database_sync_to_async(played)("Ana")
    bought = await database_sync_to_async(played)("Mallory")
    one_net = [f"2001:db8:1:2::{n:x}" for n in range(1, 61)]  # one /64: one address
    attackers = await watch(bought, one_net)
    fans = await watch(real, ["198.51.100.1", "203.0.113.7"])
    assert await database_sync_to_async(crowd)(bought) == 1
    assert await database_sync_to_async(crowd)(real) == 2
    room = await database_sync_to_async(Room.objects.get)(pk=bought.pk)
    assert room.spectators == 60  # the page still counts the sockets that watch
    assert await database_sync_to_async(featured_code)() == real.code
    for socket in attackers + fans:
        await socket.disconnect()


async def test_a_pick_whose_crowd_has_gone_is_dropped_at_once():
    quiet = await database_sync_to_async(played)("Ana")
    bought = await database_sync_to_async(played)("Mallory")
    attackers = await watch(bought, ["203.0.113.9"] * 5)
    assert await database_sync_to_async(featured_code)() == bought.code
    for socket in attackers:
        await socket.disconnect()
    await rosters.told(bought.pk)
    assert await database_sync_to_async(crowd)(bought) == 0
    assert await database_sync_to_async(featured_code)() == quiet.code


async def test_a_real_crowd_keeps_its_pick_while_it_watches():
    first = await database_sync_to_async(played)("Ana")
    fans = await watch(first, ["198.51.100.1", "198.51.100.2"])
    assert await database_sync_to_async(featured_code)() == first.code
    bigger = await database_sync_to_async(played)("Bo")
    others = await watch(bigger, [f"192.0.2.{n}" for n in range(1, 6)])
    assert await database_sync_to_async(featured_code)() == first.code  # sticky mid-game
    await fans[0].disconnect()
    await rosters.told(first.pk)
    assert await database_sync_to_async(featured_code)() == first.code  # one still watches
    await fans[1].disconnect()
    await rosters.told(first.pk)
    assert await database_sync_to_async(featured_code)() == bigger.code
    for socket in others:
        await socket.disconnect()
