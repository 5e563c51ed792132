"""Kept chat lines (issue 33, item 6): the players' and the spectators' channels keep 50 each,
so spectators cannot push the players' lines out, and a full channel keeps at most 10 lines of
one address while others' lines are there to keep."""

import pytest

from games.broadcast import chat_view
from games.rooms import chat, joining
from games.store.models import ChatMessage, Room

from .helpers import make_room

pytestmark = pytest.mark.django_db

CROWD = "203.0.113.9"
"""One address behind a dozen tokenless spectator sockets."""


def texts(room: Room, channel: str) -> list[str]:
    lines = ChatMessage.objects.filter(room=room, channel=channel).order_by("id")
    return list(lines.values_list("text", flat=True))


def test_spectators_cannot_push_the_players_lines_out(client):
    room = make_room()
    ana = joining.join_room(room, "Ana")
    for n in range(3):
        chat._keep(room, ana, f"players {n}", address="198.51.100.1")
    for n in range(120):  # from many addresses: no per-address bound helps here
        chat._keep(room, None, f"spam {n}", "handle", address=f"192.0.2.{n}")
    assert texts(room, "players") == ["players 0", "players 1", "players 2"]
    assert texts(room, "spectators") == [f"spam {n}" for n in range(70, 120)]
    read = client.get(f"/api/rooms/{room.code}/chat").json()["messages"]
    assert [m["text"] for m in read if m["channel"] == "players"] == texts(room, "players")
    assert len(read) == 53
    snapshot = chat_view.logs_html(room, player=False)
    assert all(f"players {n}" in snapshot for n in range(3)) and "spam 119" in snapshot


def test_one_address_keeps_at_most_ten_lines_of_a_full_channel():
    room = make_room()
    for n in range(20):  # four people who watch, five lines each
        chat._keep(room, None, f"fan {n}", "handle", address=f"198.51.100.{n % 4}")
    for n in range(200):  # a dozen sockets of one address, at its leisure
        chat._keep(room, None, f"spam {n}", "handle", address=CROWD)
    kept = texts(room, "spectators")
    assert kept[:20] == [f"fan {n}" for n in range(20)]
    assert kept[20:] == [f"spam {n}" for n in range(170, 200)]  # its own oldest made room
    chat._keep(room, None, "fan again", "handle", address="198.51.100.7")
    kept = texts(room, "spectators")
    assert len(kept) == 50 and kept[0] == "fan 1" and kept[-1] == "fan again"


def test_a_room_whose_lines_all_come_from_one_address_keeps_fifty():
    """A family at home shares one address: their channel still keeps its 50 lines."""
    room = make_room()
    ana, bo = joining.join_room(room, "Ana"), joining.join_room(room, "Bo")
    for n in range(60):
        chat._keep(room, ana if n % 2 else bo, f"line {n}", address="198.51.100.1")
    assert texts(room, "players") == [f"line {n}" for n in range(10, 60)]


def test_a_kept_line_holds_a_hash_of_its_address_never_the_address():
    room = make_room()
    ana = joining.join_room(room, "Ana")
    line = chat.say(room, ana, "hi", address=CROWD, sender=ana.pk)
    assert line.address == chat.address_tag(CROWD) and CROWD not in line.address
    assert chat.address_tag("198.51.100.1") != line.address
