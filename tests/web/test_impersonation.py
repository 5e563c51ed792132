"""Names that impersonate (issue 33, item 9): look-alikes of a name in the room (Unicode's
confusable skeleton), stacks of combining marks, and the app's own words."""

import os
import subprocess
import sys

import pytest

from games.kinds.table import Invalid
from games.rooms import chat, joining, nicknames
from games.rooms import nicknames as names
from games.store.models import Player
from tests.helpers.web import make_room

CYRILLIC_HOST = "\u041dost"
"""`Нost`: a Cyrillic capital En where `Host` has a Latin H."""
CYRILLIC_NORA = "N\u043er\u0430"
"""`Nora` with a Cyrillic о and а."""
ZALGO = (
    "a" + "\u0301\u0300\u0302\u0303\u0304\u0306\u0307\u0308" * 3 + "\u030a\u030b\u030c\u030d\u030f"
)
"""One letter under 29 combining marks."""


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "lookalike"),
    [
        ("Bob", "B\u043eb"),  # Cyrillic о
        ("Paypal", "\u0420\u0430yp\u0430l"),  # Cyrillic Р and а
        ("Ian", "lan"),  # capital i and small L
        ("Zoe", "Z\u03bfe"),  # Greek omicron
        ("Ana", "\U0001d400na"),  # a mathematical bold A, which NFKC already folds: same name
    ],
)
def test_a_name_that_looks_like_one_in_the_room_is_refused(first, lookalike):
    room = make_room()
    joining.join_room(room, first)
    if nicknames.clean_nickname(lookalike).casefold() == first.casefold():
        assert joining.join_room(room, lookalike).nickname == f"{first} 2"  # the same name
        return
    with pytest.raises(nicknames.NicknameError, match="looks like"):
        joining.join_room(room, lookalike)
    assert list(Player.objects.filter(room=room).values_list("nickname", flat=True)) == [first]


@pytest.mark.django_db
def test_the_same_name_in_another_case_still_gets_a_number():
    room = make_room()
    joining.join_room(room, "Ana")
    assert joining.join_room(room, "ANA").nickname == "ANA 2"
    assert joining.join_room(room, "Bo").nickname == "Bo"  # unlike anyone: welcome


@pytest.mark.django_db
def test_the_api_refuses_a_lookalike_with_a_400_naming_the_field(client):
    room = make_room()
    first = client.post(
        f"/api/rooms/{room.code}/join", {"name": "Nora"}, content_type="application/json"
    )
    assert first.status_code == 200
    reply = client.post(
        f"/api/rooms/{room.code}/join", {"name": CYRILLIC_NORA}, content_type="application/json"
    )
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("name: ") and "looks like" in reply.json()["error"]
    page = client.post(f"/r/{room.code}/join/", {"nickname": CYRILLIC_NORA})
    assert page.status_code == 400 and "looks like" in page.content.decode()
    assert room.players.count() == 1


@pytest.mark.parametrize(
    "word",
    [
        "Spectator",
        "spectator 2",
        "Sp\u0435ctator",  # Cyrillic е
        "Host",
        CYRILLIC_HOST,
        "System",
        "ADMIN",
        "Solver bot",
        "Computer (easy)",
    ],
)
def test_the_apps_own_words_are_not_names(word):
    with pytest.raises(nicknames.NicknameError, match="the app uses itself"):
        nicknames.clean_nickname(word)


def test_names_near_the_apps_words_are_fine():
    assert nicknames.clean_nickname("Hostess") == "Hostess"
    assert nicknames.clean_nickname("Ada the Admin") == "Ada the Admin"


@pytest.mark.parametrize(
    "raw",
    [ZALGO[:24], "\u0301" * 23, "A" + "\u20dd" * 5],  # the last: enclosing circles
)
def test_a_name_with_stacked_combining_marks_is_refused(raw):
    with pytest.raises(nicknames.NicknameError):
        nicknames.clean_nickname(raw)


@pytest.mark.parametrize(
    "name",
    [
        "Zoë",
        "Nguyễn",  # Vietnamese: two marks on one letter, decomposed
        "Nguye\u0323\u0302n",
        "שָׁלוֹם",  # Hebrew with points
        "กี่",  # Thai: a vowel and a tone mark over one consonant
        "བསྒྲུབས",  # Tibetan: a stack
    ],
)
def test_real_names_with_marks_are_accepted(name):
    assert names.stacked_marks(name) <= names.MAX_MARKS
    assert nicknames.clean_nickname(name)


def test_a_chat_line_of_stacked_marks_is_refused():
    with pytest.raises(Invalid, match="combining marks"):
        chat.clean("\u0301" * 200)
    with pytest.raises(Invalid, match="combining marks"):
        chat.clean("hi " + ZALGO)
    assert chat.clean("Nguyễn, à bientôt") == "Nguyễn, à bientôt"


def test_the_skeleton_folds_scripts_and_case():
    assert names.looks(CYRILLIC_HOST) & names.looks("host")
    assert names.looks("ADMIN") & names.looks("admin")
    assert names.skeleton("Paypal") == names.skeleton("\u0420\u0430yp\u0430l")
    assert names.skeleton("Ana") != names.skeleton("Ada")


def test_the_server_builds_the_confusables_table_before_the_first_name():
    """At the server's start (`config/asgi.py`), not during the first room's creation."""
    asked = (
        "import config.asgi; from games.rooms import nicknames; "
        "print(nicknames._prototypes.cache_info().currsize)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", asked], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "1"
