"""Hostile text (issue 14, item 9): NUL and other invisible characters in codes and nicknames,
look-alike names, rooms left without their creator, and JSON bodies posted from other sites."""

import pytest

from games.rooms import joining, nicknames
from games.store.models import Player, Room

from .helpers import make_room

FAMILY = "👩‍👩‍👧‍👦"
"""Seven characters, one grapheme cluster."""
SCOTLAND = "🏴󠁧󠁢󠁳󠁣󠁴󠁿"
"""A flag drawn from a black flag and tag characters (invisible alone)."""


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  Ana   Bel ", "Ana Bel"),
        ("Ana\tBel\n", "Ana Bel"),
        ("A\x00na", "Ana"),
        ("A\u200bn\u200da\u2060", "Ana"),  # zero-width space, joiner, word joiner
        ("\u202eAna\u202c", "Ana"),  # bidirectional override
        ("Ａｎａ", "Ana"),  # full-width letters
        ("ﬁne", "fine"),  # a ligature
        ("Ana\u2028Bel\u2029", "Ana Bel"),  # line and paragraph separators
        ("Ana\ue000", "Ana"),  # private use
        ("Zoë", "Zoë"),
        ("e\u0301", "é"),  # composed
        ("李小龍", "李小龍"),
        ("★", "★"),
        ("?!", "?!"),
        ("Ana‍", "Ana"),  # a joiner joining nothing
        ("‍Ana ‍⭐‍", "Ana ⭐"),
        (FAMILY, FAMILY),  # joined by zero-width joiners: one family, not four faces
        (f"{FAMILY}‍", FAMILY),
        (SCOTLAND, SCOTLAND),
        ("❤️", "❤️"),
    ],
)
def test_nicknames_are_normalised_and_stripped_of_invisible_characters(raw, clean):
    assert nicknames.clean_nickname(raw) == clean


def test_a_name_is_cut_between_grapheme_clusters():
    """A taken name gets a number; the cut to make room for it never splits a family."""
    name = "Ana " + FAMILY * 2 + "bcdefg"  # 4 + 14 + 6 = 24 characters
    assert nicknames.unique_nickname(name, {name.casefold()}) == "Ana " + FAMILY * 2 + "bcde 2"
    long = "Ana" + FAMILY * 3  # 3 + 21 = 24 characters: the number takes two
    assert nicknames.unique_nickname(long, {long.casefold()}) == "Ana" + FAMILY * 2 + " 2"


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "\x00", "\u200b\u200b", "\u3164", "\uffa0 \u115f", "\u2800", "\u0301", "\ufeff"],
)
def test_a_nickname_needs_a_visible_character(raw):
    with pytest.raises(nicknames.NicknameError):
        nicknames.clean_nickname(raw)


@pytest.mark.django_db
def test_unique_names_compare_the_normalised_name():
    room = make_room()
    assert joining.join_room(room, "Ana").nickname == "Ana"
    assert joining.join_room(room, "Ａｎａ\u200b").nickname == "Ana 2"
    assert joining.join_room(room, "ana").nickname == "ana 3"


@pytest.mark.django_db
def test_a_code_with_nul_is_an_unknown_room(client):
    room = make_room()
    for code in (f"{room.code}%00", "ab%00cd", "%00"):
        assert client.get(f"/r/{code}/").status_code == 404
        assert client.get(f"/r/{code}/watch/").status_code == 404
        assert client.post(f"/r/{code}/join/", {"nickname": "Ana"}).status_code == 404
        assert client.get(f"/api/rooms/{code}").status_code == 404
        reply = client.post(
            f"/api/rooms/{code}/join", {"name": "Ana"}, content_type="application/json"
        )
        assert reply.status_code == 404 and reply.json() == {"error": "No room with that code."}


@pytest.mark.django_db
def test_a_nickname_with_only_invisible_characters_is_refused_everywhere(client):
    room = make_room()
    reply = client.post(
        f"/api/rooms/{room.code}/join", {"name": "\x00\u200b"}, content_type="application/json"
    )
    assert reply.status_code == 400 and reply.json()["error"].startswith("name: ")
    page = client.post(f"/r/{room.code}/join/", {"nickname": "\u200b\u0301"})
    assert page.status_code == 400 and "at least one letter" in page.content.decode()
    reply = client.post(
        f"/api/rooms/{room.code}/join", {"name": "Ana\x00"}, content_type="application/json"
    )
    assert reply.status_code == 200 and reply.json()["name"] == "Ana"
    assert list(room.players.values_list("nickname", flat=True)) == ["Ana"]


@pytest.mark.django_db
def test_a_refused_creator_leaves_no_room_behind(client):
    reply = client.post(
        "/api/rooms",
        {"game": "minesweeper", "preset": "beginner", "name": "\u200b"},
        content_type="application/json",
    )
    assert reply.status_code == 400 and reply.json()["error"].startswith("name: ")
    page = client.post(
        "/rooms/",
        {"game": "minesweeper", "nickname": "\u2060\u2800", "preset": "beginner", "mode": "coop"},
    )
    assert page.status_code == 400
    assert Room.objects.count() == 0


@pytest.mark.django_db
def test_a_failing_join_rolls_the_new_room_back(client, monkeypatch):
    """Any error while seating the creator (PostgreSQL refusing a character, a lost connection)
    takes the room with it."""

    def broken(room, nickname):
        Player.objects.create(room=room, number=0, nickname="half")
        raise RuntimeError("the database went away")

    monkeypatch.setattr(joining, "join_room", broken)
    client.raise_request_exception = False
    reply = client.post(
        "/api/rooms",
        {"game": "minesweeper", "preset": "beginner", "name": "Ana"},
        content_type="application/json",
    )
    assert reply.status_code == 500
    assert Room.objects.count() == 0 and Player.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_api_bodies_must_be_sent_as_json(client, content_type):
    """A page on any site can post these types without asking the browser first (no CORS
    preflight), from its visitor's address; `application/json` needs the preflight."""
    room = make_room()
    body = '{"name": "Ana"}'
    for path in ("/api/rooms", f"/api/rooms/{room.code}/join"):
        reply = client.post(path, body, content_type=content_type, HTTP_ORIGIN="https://evil.test")
        assert reply.status_code == 415
        assert reply.json() == {
            "error": "Send the body as JSON, with 'Content-Type: application/json'."
        }
    assert Room.objects.count() == 1 and room.players.count() == 0


@pytest.mark.django_db
def test_json_with_a_charset_is_json(client):
    reply = client.post(
        "/api/rooms",
        '{"preset": "beginner", "name": "Ana"}',
        content_type="application/json; charset=utf-8",
    )
    assert reply.status_code == 201
