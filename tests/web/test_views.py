"""Pages: creating rooms, the nickname step, watching, unknown codes and escaping."""

import re

import pytest

from games.rooms import joining
from games.store.models import Game, Player, Room

pytestmark = pytest.mark.django_db


def main_of(html: str) -> str:
    return html.split("<main", 1)[1].split("</main>", 1)[0]


def create(client, **fields):
    data = {"nickname": "Ana", "preset": "beginner", "is_public": "on", **fields}
    return client.post("/rooms/", data)


def test_home_offers_presets_and_lists_live_public_rooms(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.content.decode()
    for label in ("Beginner", "Intermediate", "Expert", "Custom"):
        assert label in html
    room = Room.objects.get(code=create(client)["Location"].split("/")[2])
    Player.objects.filter(room=room).update(connections=1)
    live = client.get("/rooms/live/").content.decode()
    assert f"/r/{room.code}/watch/" in live
    assert "1 playing" in live


def test_private_rooms_are_not_listed(client):
    response = client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"})
    room = Room.objects.get(code=response["Location"].split("/")[2])
    Player.objects.filter(room=room).update(connections=1)
    assert room.is_public is False
    assert room.code not in client.get("/rooms/live/").content.decode()


def test_creating_a_room_seats_the_creator_and_shows_the_board(client):
    response = create(client)
    assert response.status_code == 302
    code = response["Location"].split("/")[2]
    assert len(code) >= 22  # 16 random bytes
    page = client.get(response["Location"]).content.decode()
    assert page.count('class="cell"') == 81
    assert re.search(r'id="board"[^>]*data-version="0"[^>]*data-status="playing"', page)
    assert "Playing as" in page and "Ana" in page
    assert f"/r/{code}/watch/" in page
    assert Game.objects.get(room__code=code).number == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"preset": "custom", "width": "500", "height": "10", "mines": "5"}, "Width must be"),
        ({"preset": "custom", "width": "10", "height": "0", "mines": "5"}, "Height must be"),
        ({"preset": "custom", "width": "10", "height": "10", "mines": "95"}, "takes 1 to 91"),
        ({"preset": "custom", "width": "10", "height": "10", "mines": ""}, "takes 1 to 91"),
        (
            {"preset": "custom", "width": "10", "height": "10", "mines": "40", "no_guess": "on"},
            "No-guess boards allow at most 25%",
        ),
        ({"nickname": ""}, "required"),
    ],
)
def test_bad_settings_get_a_clear_message_and_create_nothing(client, fields, message):
    response = create(client, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Room.objects.count() == 0


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"width": "9.5"}, "width", "Width must be a whole number from 2 to 50."),
        ({"height": "ten"}, "height", "Height must be a whole number from 2 to 50."),
        ({"mines": "2.5"}, "mines", "Mines must be a whole number."),
        ({"width": "500"}, "width", "Width must be a whole number from 2 to 50."),
        ({"mines": "95"}, "mines", "A 10×10 board takes 1 to 91 mines"),
    ],
)
def test_a_bad_custom_size_is_shown_next_to_its_field_with_what_was_typed(
    client, fields, field, message
):
    typed = {"preset": "custom", "width": "10", "height": "10", "mines": "12", **fields}
    response = create(client, nickname="Cleo", **typed)
    assert response.status_code == 400
    html = main_of(response.content.decode())
    error = re.search(rf'<span class="field-error" id="{field}-error">([^<]*)</span>', html)
    assert error and message in error[1]
    assert re.search(
        rf'name="{field}"[^>]*aria-invalid="true" aria-describedby="{field}-error"', html
    )
    for name in ("width", "height", "mines"):
        assert re.search(rf'name="{name}"[^>]*value="{typed[name]}"', html)
    assert 'value="Cleo"' in html and re.search(r'value="custom"[^>]*checked', html)
    assert Room.objects.count() == 0


@pytest.mark.parametrize(("mode", "smallest"), [("coop", 2), ("race", 4)])
def test_every_bad_custom_size_field_is_shown_at_once_under_its_own_field(client, mode, smallest):
    typed = {"preset": "custom", "mode": mode, "width": "99", "height": "1", "mines": "0"}
    if mode == "race":
        typed.update(penalty="5", time_limit="0", spectator_delay="3", bot_pace="2")
    response = create(client, **typed)
    assert response.status_code == 400
    html = main_of(response.content.decode())
    errors = dict(re.findall(r'<span class="field-error" id="(\w+)-error">([^<]*)</span>', html))
    assert errors.keys() == {"width", "height", "mines"}
    assert errors["width"].startswith(f"Width must be a whole number from {smallest} to")
    assert errors["height"].startswith(f"Height must be a whole number from {smallest} to")
    assert errors["mines"] == "Mines must be a whole number, at least 1."
    assert Room.objects.count() == 0


def test_a_preset_ignores_what_is_left_in_the_hidden_custom_fields(client):
    assert create(client, preset="beginner", width="9.5", mines="lots").status_code == 302
    assert Room.objects.get().settings["width"] == 9


@pytest.mark.parametrize(("width", "height"), [(2, 2), (2, 3), (3, 2), (3, 3)])
def test_a_board_too_small_for_mines_says_so(client, width, height):
    response = create(client, preset="custom", width=width, height=height, mines=1)
    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(r'<span class="field-error" id="width-error">([^<]*)</span>', html)
    assert error and f"A {width}×{height} board is too small for mines" in error[1]  # at Width
    assert "1 to 0" not in html and 'id="mines-error"' not in html
    assert Room.objects.count() == 0


def test_the_smallest_boards_that_take_a_mine(client):
    for width, height in ((2, 4), (4, 2)):
        assert (
            create(client, preset="custom", width=width, height=height, mines=1).status_code == 302
        )


def test_two_players_named_alike_are_told_apart_on_the_page(client):
    code = create(client)["Location"].split("/")[2]  # Ana
    from django.test import Client

    friend = Client()
    assert friend.post(f"/r/{code}/join/", {"nickname": "ana"}).status_code == 302
    page = friend.get(f"/r/{code}/").content.decode()
    assert re.search(r"Playing as\s*(?:</span>)?\s*<strong[^>]*>ana 2</strong>", page)
    assert list(Player.objects.filter(room__code=code).values_list("nickname", flat=True)) == [
        "Ana",
        "ana 2",
    ]
    # The session keeps the name asked for: in a room of its own the friend is plain "ana".
    elsewhere = create(Client(), nickname="Cleo")["Location"]
    assert 'value="ana"' in friend.get(elsewhere).content.decode()  # offered, not taken
    assert friend.post(f"{elsewhere}join/", {"nickname": "ana"}).status_code == 302
    assert re.search(r"<strong[^>]*>ana</strong>", friend.get(elsewhere).content.decode())


def test_a_newcomer_picks_a_nickname_once(client, django_user_model):
    code = create(client)["Location"].split("/")[2]
    from django.test import Client

    friend = Client()
    assert "Pick a nickname" in friend.get(f"/r/{code}/").content.decode()
    assert friend.post(f"/r/{code}/join/", {"nickname": "Bo"}).status_code == 302
    assert "Playing as" in friend.get(f"/r/{code}/").content.decode()
    other = create(friend)["Location"]  # the session remembers the nickname
    assert "Playing as" in friend.get(other).content.decode()
    assert list(Player.objects.filter(room__code=code).values_list("nickname", flat=True)) == [
        "Ana",
        "Bo",
    ]


def test_nicknames_are_escaped_in_pages(client):
    payload = '<img src=x onerror="alert(1)">'
    code = create(client, nickname=payload[:24])["Location"].split("/")[2]
    page = client.get(f"/r/{code}/").content.decode()
    assert "<img src=x" not in page
    assert "&lt;img src=x" in page


def test_watching_needs_no_nickname_and_offers_no_seat(client):
    code = create(client)["Location"].split("/")[2]
    from django.test import Client

    page = Client().get(f"/r/{code}/watch/").content.decode()
    assert "Spectating" in page
    assert "?watch=1" in page
    assert Player.objects.filter(room__code=code).count() == 1


@pytest.mark.parametrize("template", ["/r/{}/", "/r/{}/watch/"])
@pytest.mark.parametrize("code", ["unknown", "AAAAAAAAAAAAAAAAAAAAAA"])
def test_unknown_rooms_get_a_friendly_404_that_reveals_nothing(client, template, code):
    response = client.get(template.format(code))
    assert response.status_code == 404
    assert "Nothing here" in response.content.decode()
    # The page is the same for every unknown code, one a letter off a real room's included: it
    # tells nothing about which codes exist (nor echoes the code it was asked for).
    real = create(client)["Location"].split("/")[2]
    near_miss = real[:-1] + ("b" if real[-1] == "a" else "a")
    other = client.get(template.format(near_miss))
    assert other.status_code == 404
    assert main_of(other.content.decode()) == main_of(response.content.decode())


def test_pages_carry_a_strict_content_security_policy(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


@pytest.mark.parametrize(
    ("fields", "title"),
    [
        ({"preset": "expert"}, "Expert 30×16"),
        ({"preset": "intermediate"}, "Intermediate 16×16"),
        (
            {"preset": "custom", "width": "20", "height": "12", "mines": "30"},
            "Custom 20×12 · 30 mines",
        ),
        ({"preset": "custom", "width": "9", "height": "9", "mines": "11"}, "Custom 9×9 · 11 mines"),
        (
            {
                "mode": "race",
                "preset": "expert",
                "penalty": "5",
                "time_limit": "0",
                "spectator_delay": "3",
                "bot_pace": "2",
            },
            "Expert 30×16",
        ),
    ],
)
def test_the_room_page_names_its_board(client, fields, title):
    room_url = create(client, **fields)["Location"]
    html = main_of(client.get(room_url).content.decode())
    assert f'<p class="board-title">{title}</p>' in html


def test_a_full_coop_room_says_so_before_asking_a_name(client):
    from django.test import Client

    room = Room.objects.get(code=create(client)["Location"].split("/")[2])
    room.player_cap = joining.MAX_PLAYERS_PER_ROOM  # the host's cap at its highest
    room.save(update_fields=["player_cap"])
    for n in range(joining.MAX_PLAYERS_PER_ROOM - 1):
        joining.join_room(room, f"P{n}")
    html = main_of(Client().get(f"/r/{room.code}/").content.decode())
    assert joining.ROOM_FULL in html and f'href="/r/{room.code}/watch/"' in html
    assert 'name="nickname"' not in html


@pytest.mark.parametrize(
    "arrival",
    [
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_REFERER": "https://elsewhere.example/page"},
        {"HTTP_SEC_FETCH_SITE": "same-origin", "HTTP_REFERER": "http://testserver/"},
        {},
    ],
)
def test_a_get_never_takes_a_seat_the_join_form_does(client, arrival):
    """Whatever sent the browser (another site's link, a page of ours, a prefetch, a typed
    address), opening a room asks, the remembered name filled in; only the form's POST seats."""
    code = create(client)["Location"].split("/")[2]  # Ana
    from django.test import Client

    friend = Client()
    assert friend.post(f"/r/{code}/join/", {"nickname": "Bo"}).status_code == 302
    other = create(client, nickname="Cleo")["Location"]
    for _ in range(2):
        asked = friend.get(other, **arrival)
        page = asked.content.decode()
        assert asked.status_code == 200 and "Pick a nickname" in page and 'value="Bo"' in page
    assert not Player.objects.filter(room__code=other.split("/")[2], nickname="Bo").exists()
    assert friend.post(f"{other}join/", {"nickname": "Bo"}).status_code == 302
    assert "Playing as" in friend.get(other, **arrival).content.decode()


def test_taking_a_seat_cycles_the_session_key(client, settings):
    """A session planted in the browser beforehand (its key known to whoever planted it) never
    holds the seat taken with it: creating a room and joining one both give a new key."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.test import Client

    def planted() -> tuple[Client, str]:
        session = SessionStore()
        session["nickname"] = "Planted"
        session.create()
        browser = Client()
        browser.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
        return browser, session.session_key

    victim, key = planted()
    code = create(victim)["Location"].split("/")[2]
    assert victim.cookies[settings.SESSION_COOKIE_NAME].value not in ("", key)
    friend, key = planted()
    assert friend.post(f"/r/{code}/join/", {"nickname": "Bo"}).status_code == 302
    assert friend.cookies[settings.SESSION_COOKIE_NAME].value not in ("", key)
    assert "Playing as" in friend.get(f"/r/{code}/").content.decode()  # the new key holds it
    planter = Client()
    planter.cookies[settings.SESSION_COOKIE_NAME] = key
    page = planter.get(f"/r/{code}/").content.decode()
    assert "Pick a nickname" in page and "Playing as" not in page
    assert not SessionStore().exists(key)  # the old key is gone, not left holding the seat


def test_a_new_browser_takes_a_seat_with_one_session_write(client):
    """A browser with no session yet has no key to fix: its seat is written once, under a new
    key, not as an empty session first and the seat over it (docs/performance.md, issue 34)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    code = create(client)["Location"].split("/")[2]
    newcomer = Client()
    assert newcomer.get(f"/r/{code}/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert newcomer.post(f"/r/{code}/join/", {"nickname": "Bo"}).status_code == 302
    writes = [
        q["sql"]
        for q in queries
        if "django_session" in q["sql"] and q["sql"].startswith(("INSERT", "UPDATE"))
    ]
    assert len(writes) == 1 and writes[0].startswith("INSERT")
    assert "Playing as" in newcomer.get(f"/r/{code}/").content.decode()


@pytest.mark.parametrize("path", ["/", "/records/"])
def test_the_home_and_records_pages_describe_themselves_once(client, path):
    """Issue 35: neither carried a meta description (search results showed page text)."""
    page = client.get(path).content.decode()
    head = page.split("</head>")[0]
    found = re.findall(r'<meta name="description" content="([^"]+)">', head)
    assert len(found) == 1 and "Minesweeper" in found[0] and 50 <= len(found[0]) <= 160
