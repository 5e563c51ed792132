"""Tic-tac-toe pages: the create form on the home page, the room page and its markup contract."""

import re

import pytest

from games.kinds.tictactoe import rules
from games.protocol.messages import SquareMove
from games.rooms import computers, dispatch, joining, playing
from games.store.models import Game, Player, Room

pytestmark = pytest.mark.django_db


def create(client, **fields):
    data = {"game": "tictactoe", "nickname": "Ana", "x": "human", "o": "perfect", **fields}
    return client.post("/rooms/", data)


def room_of(response) -> Room:
    assert response.status_code == 302, response.content.decode()[:2000]
    return Room.objects.get(code=response["Location"].split("/")[2])


def test_home_offers_both_games_and_the_seat_pickers(client):
    html = client.get("/").content.decode()
    assert 'name="game" value="minesweeper" checked' in html
    assert 'name="game" value="tictactoe"' in html
    for name in ("x", "o"):
        assert f'<select name="{name}">' in html
    for label in ("Person", "Computer (random)", "Computer (perfect)"):
        assert label in html
    assert 'id="tictactoe-fields" data-game="tictactoe" hidden' in html


def test_creating_a_tictactoe_room_seats_the_creator_on_the_person_side(client):
    room = room_of(create(client, x="perfect", o="human", is_public="on"))
    assert (room.kind, room.settings, room.is_public) == (
        "tictactoe",
        {"x": "perfect", "o": "human"},
        True,
    )
    ana = Player.objects.get(room=room)
    assert (ana.nickname, ana.number) == ("Ana", 0)
    params = Game.objects.get(room=room).params
    assert params["O"]["seat"] == ana.number and params["X"]["seat"] is None
    page = client.get(f"/r/{room.code}/").content.decode()
    assert "Playing as" in page


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"x": "robot"}, "Select a valid choice. robot is not one of the available choices."),
        ({"o": ""}, "This field is required."),
        ({"nickname": ""}, "This field is required."),
    ],
)
def test_bad_seat_values_are_refused_and_create_nothing(client, fields, message):
    response = create(client, **fields)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert 'name="game" value="tictactoe" checked' in html  # the form stays on tic-tac-toe
    assert 'id="tictactoe-fields" data-game="tictactoe">' in html
    assert not Room.objects.exists()


def test_an_unknown_game_is_refused(client):
    response = create(client, game="chess")
    assert response.status_code == 400
    assert re.search(
        r"Choose Minesweeper, [\w, -]*Flags[\w, -]* or Tic-tac-toe\.", response.content.decode()
    )
    assert not Room.objects.exists()


def test_minesweeper_is_still_the_default_game(client):
    response = client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"})
    assert room_of(response).kind == "minesweeper"


def test_the_room_page_follows_the_square_contract_and_has_the_live_parts(client):
    room = room_of(create(client))
    html = client.get(f"/r/{room.code}/").content.decode()
    found = re.findall(r'id="square-(\d)" data-mark="([XO]?)"', html)
    assert found == [(str(n), "") for n in range(9)]
    assert 'aria-label="square 1, empty"' in html
    assert re.search(
        r'id="board" class="ttt-board"[^>]*data-game="1" data-version="0" data-status="playing"',
        html,
    )
    assert re.search(
        r'id="game-meta" hidden data-game="1" data-version="0" data-status="playing"', html
    )
    for part in (
        'id="room-error"',
        'id="scoreboard"',
        'id="status"',
        'id="roster"',
        'aria-live="polite"',
    ):
        assert part in html
    assert f'ws-connect="/ws/r/{room.code}/"' in html
    assert f"/r/{room.code}/watch/" in html
    for asset in ("tictactoe.css", "live.js", "tictactoe.js"):  # names carry a content hash
        stem, ext = asset.split(".")
        assert re.search(rf"/static/games/{stem}\.(\w+\.)?{ext}", html)
    assert "Ana (X) to move" in html and "Computer (perfect)" in html


def test_the_tictactoe_stylesheet_is_only_on_tictactoe_pages(client):
    assert "tictactoe.css" not in client.get("/").content.decode()
    minesweeper = room_of(client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"}))
    assert "tictactoe.css" not in client.get(f"/r/{minesweeper.code}/").content.decode()


def test_a_third_visitor_joins_but_is_told_both_seats_are_taken(client, django_user_model):
    room = room_of(create(client, o="human"))
    joining.join_room(room, "Bo")
    from django.test import Client

    visitor = Client()
    visitor.post(f"/r/{room.code}/join/", {"nickname": "Cy"})
    html = visitor.get(f"/r/{room.code}/").content.decode()
    assert "Watching as" in html and "both seats taken" in html


@pytest.mark.parametrize(
    ("sides", "notice"),
    [
        ({"o": "human"}, "Both seats are taken — you can watch."),
        ({"o": "perfect"}, "The seat is taken — you can watch."),
    ],
)
def test_an_invite_whose_seats_are_taken_says_so_before_asking_a_name(client, sides, notice):
    room = room_of(create(client, **sides))
    if sides["o"] == "human":
        joining.join_room(room, "Bo")
    from django.test import Client

    visitor = Client()
    html = visitor.get(f"/r/{room.code}/").content.decode()
    assert notice in html
    watch = html.index(f'href="/r/{room.code}/watch/"')
    assert watch < html.index('name="nickname"')
    assert "autofocus" not in html
    session = visitor.session  # a name given before does not skip the notice
    session["nickname"] = "Cy"
    session.save()
    assert notice in visitor.get(f"/r/{room.code}/").content.decode()
    assert not Player.objects.filter(room=room, nickname="Cy").exists()


def test_an_invite_with_a_free_seat_asks_for_a_name_at_once(client):
    room = room_of(create(client, o="human"))
    from django.test import Client

    html = Client().get(f"/r/{room.code}/").content.decode()
    assert "taken" not in html and "autofocus" in html


def test_spectators_get_a_page_without_a_seat_or_rematch(client):
    room = room_of(create(client, x="random", o="perfect"))
    computers.play_computer_turns(room)
    html = client.get(f"/r/{room.code}/watch/").content.decode()
    assert "Spectating" in html
    assert 'ws-connect="/ws/r/' in html and "?watch=1" in html
    assert 'data-seat=""' in html
    assert re.search(r'id="board"[^>]*data-status="(won|draw)"', html)


def test_nicknames_are_escaped_on_the_scoreboard(client):
    room = room_of(create(client, nickname="<b>Ana</b>"))
    html = client.get(f"/r/{room.code}/").content.decode()
    assert "&lt;b&gt;Ana&lt;/b&gt; (X) to move" in html
    assert "<b>Ana</b>" not in html


def test_live_rooms_describe_who_plays(client):
    room = room_of(create(client, is_public="on"))
    Player.objects.filter(room=room).update(connections=1)
    live = client.get("/rooms/live/").content.decode()
    assert "Tic-tac-toe" in live and "person vs perfect computer" in live


def test_the_scoreboard_counts_over_the_rooms_games(client):
    room = room_of(create(client, x="human", o="human"))
    ana = Player.objects.get(room=room)
    bo = joining.join_room(room, "Bo")
    for player, cell in [(ana, 0), (bo, 3), (ana, 1), (bo, 4), (ana, 2)]:  # Ana (X) wins
        dispatch.play(room, player, SquareMove(cell))
    playing.start_next_game(room, ana, replacing=1)
    draw = [(bo, 4), (ana, 0), (bo, 8), (ana, 2), (bo, 1), (ana, 7), (bo, 6), (ana, 5), (bo, 3)]
    for player, cell in draw:  # Bo holds X now
        dispatch.play(room, player, SquareMove(cell))
    assert Game.objects.get(room=room, number=2).status == Game.Status.DRAW
    playing.start_next_game(room, bo, replacing=2)
    html = client.get(f"/r/{room.code}/").content.decode()
    cards = re.findall(
        r'class="contender[^"]*" data-mark="([XO])" data-seat="(\d)".*?contender-name"[^>]*>([^<]+)<'
        r'.*?contender-wins"[^>]*>(\d+)<',
        html,
        re.S,
    )
    assert cards == [("X", "0", "Ana", "1"), ("O", "1", "Bo", "0")]  # game 3: Ana holds X again
    assert re.search(r'class="draws-count">1<', html)
    assert rules.sides(Game.objects.get(room=room, number=3).params)[rules.engine.Mark.X].seat == 0


def invite_box(page: str) -> str:
    return re.search(r'<section class="invite".*?</section>', page, re.S)[0]


@pytest.mark.parametrize(
    ("x", "o", "heading", "link", "says"),
    [
        ("human", "human", "Invite a friend", "/r/{code}/", "takes the other person's seat"),
        ("human", "perfect", "Invite friends to watch", "/r/{code}/watch/", "watch it live"),
        ("random", "human", "Invite friends to watch", "/r/{code}/watch/", "watch it live"),
        ("random", "perfect", "Share the watch link", "/r/{code}/watch/", "play each other"),
    ],
)
def test_the_invite_fits_who_plays(client, x, o, heading, link, says):
    """A friend takes a seat only where a person's seat is open; otherwise friends watch."""
    room = joining.create_room("tictactoe", rules.validate_settings(x, o))
    box = invite_box(client.get(f"/r/{room.code}/watch/").content.decode())
    assert f"<h2>{heading}</h2>" in box and says in box
    value = re.search(r'id="invite-link"[^>]*value="([^"]+)"', box)[1]
    assert value == "http://testserver" + link.format(code=room.code)
    if x != "human" or o != "human":
        assert "other person's seat" not in box and "takes the other" not in box


@pytest.mark.parametrize(
    ("x", "o", "people"),
    [("human", "human", "2"), ("human", "perfect", "1"), ("perfect", "random", "0")],
)
def test_the_create_form_hint_fits_the_chosen_players(client, x, o, people):
    """The sentence for the chosen players is shown; home.js swaps it when the choice changes."""
    response = client.post(
        "/rooms/", {"game": "tictactoe", "nickname": "", "x": x, "o": o}
    )  # refused (no nickname): the form comes back with the choices made
    fields = response.content.decode().split('id="tictactoe-fields"')[1]
    hint = re.search(r'<p class="hint" data-count-of="human">.*?</p>', fields, re.S)[0]
    shown = re.findall(r'<span data-count="(\d)">', hint)
    assert shown == [people]
    assert len(re.findall(r'data-count="\d" hidden', hint)) == 2
