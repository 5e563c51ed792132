"""Flags pages: the create form on the home page, the room page and its markup contract, the
lobby's line for a Flags room."""

import re

import pytest

from games.protocol.messages import CellMove
from games.rooms import dispatch
from games.store.models import Game, Player, Room
from tests.helpers.flags import mines

pytestmark = pytest.mark.django_db


def create(client, **fields):
    data = {"game": "flags", "nickname": "Ana", "x": "human", "o": "strong", **fields}
    return client.post("/rooms/", data)


def room_of(response) -> Room:
    assert response.status_code == 302, response.content.decode()[:2000]
    return Room.objects.get(code=response["Location"].split("/")[2])


def test_home_offers_flags_with_its_fields(client):
    html = client.get("/").content.decode()
    assert 'name="game" value="flags"' in html
    assert "Flags · claim more mines than your opponent" in html
    fields = html.split('id="flags-fields"')[1].split('class="game-fields"')[0]
    for label in ("Computer (easy)", "Computer (strong)", "Mines (odd)", "Turn timer"):
        assert label in fields
    assert 'name="mines"' in fields and 'value="51"' in fields


def test_creating_a_flags_room_seats_the_creator(client):
    room = room_of(create(client, x="easy", o="human", mines="21", is_public="on"))
    assert room.kind == "flags"
    assert room.settings == {"x": "easy", "o": "human", "mines": 21, "turn_seconds": 0}
    ana = Player.objects.get(room=room)
    params = Game.objects.get(room=room).params
    assert params["O"]["seat"] == ana.number and params["X"]["seat"] is None
    assert "Playing as" in client.get(f"/r/{room.code}/").content.decode()


def test_an_empty_mine_count_is_the_standard_game(client):
    room = room_of(create(client, mines=""))
    assert room.settings["mines"] == 51


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mines": "40"}, "Mines must be an odd number from 1 to 99"),
        ({"mines": "lots"}, "Mines must be a whole number."),
        ({"x": "perfect"}, "Select a valid choice."),
    ],
)
def test_bad_values_are_refused_and_create_nothing(client, fields, message):
    response = create(client, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Room.objects.count() == 0


def test_the_room_page_follows_the_contract_and_explains_the_rules(client):
    room = room_of(create(client, o="human"))
    html = client.get(f"/r/{room.code}/").content.decode()
    board = re.search(r'<div id="board"[^>]*>', html)[0]
    for part in ('data-turn="X"', 'data-version="0"', 'data-status="playing"'):
        assert part in board
    assert (
        len(re.findall(r'id="cell-\d+-\d+" data-x="\d+" data-y="\d+" data-state="hidden"', html))
        == 256
    )
    assert 'id="score-X"' in html and 'id="score-O"' in html
    assert re.search(r'<button type="button" id="bomb-toggle"[^>]*aria-pressed="false"', html)
    assert re.search(r'<div id="bomb"[^>]*hidden', html)  # flags.js shows it to the player behind
    rules = re.search(r'<ol class="rules-lines">(.*?)</ol>', html, re.S)[1]
    assert rules.count("<li>") == 3
    assert "26" in rules and "bomb" in rules
    for asset in ("flags.css", "live.js", "flags.js"):
        stem, ext = asset.split(".")
        assert re.search(rf"/static/games/{stem}\.(\w+\.)?{ext}", html)
    assert "room.js" not in html and "tictactoe.css" not in html
    assert "Ana (X) to move" in html and "Invite a friend" in html


def test_the_flags_stylesheet_is_only_on_flags_pages(client):
    assert "flags.css" not in client.get("/").content.decode()
    minesweeper = room_of(client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"}))
    assert "flags.css" not in client.get(f"/r/{minesweeper.code}/").content.decode()


def test_claimed_mines_carry_their_side_on_the_page(client):
    room = room_of(create(client, o="human"))
    ana = Player.objects.get(room=room)
    at = mines(room)[0]
    dispatch.play(room, ana, CellMove("reveal", *at))
    html = client.get(f"/r/{room.code}/watch/").content.decode()
    assert re.search(
        rf'id="cell-{at[0]}-{at[1]}" data-x="{at[0]}" data-y="{at[1]}" data-state="claimed" '
        r'data-seat="X"',
        html,
    )
    assert re.search(r'id="score-X"[^>]*>1<', html)
    assert "Spectating" in html and 'data-seat=""' in html


def test_the_lobby_and_the_join_page_name_the_kind(client):
    room = room_of(create(client, is_public="on", o="human"))
    Player.objects.filter(room=room).update(connections=1)
    live = client.get("/rooms/live/").content.decode()
    assert '<span class="live-kind" data-kind="flags">Flags</span>' in live
    assert "person vs person · 51 mines" in live
    from django.test import Client

    join = Client().get(f"/r/{room.code}/").content.decode()
    assert "<strong>Ana</strong> invited you to a Flags room" in join


def test_no_page_or_answer_shows_a_mine_before_the_end(client):
    """Mid-game, every cell on the page and in the API is what both players may see: open cells
    with their counts, claimed mines, and hidden cells with nothing on them."""
    room = room_of(create(client, o="human"))
    ana = Player.objects.get(room=room)
    for at in mines(room)[:3]:
        dispatch.play(room, ana, CellMove("reveal", *at))
    state = Game.objects.get(room=room).state
    opened, claimed = set(state["revealed"]), set(state["claimed"]["X"])
    html = client.get(f"/r/{room.code}/watch/").content.decode()
    shown = re.findall(r'id="cell-(\d+)-(\d+)" data-x="\d+" data-y="\d+" data-state="(\w+)"', html)
    assert len(shown) == 256
    for x, y, cell_state in shown:
        cell = int(y) * 16 + int(x)
        expected = "claimed" if cell in claimed else "revealed" if cell in opened else "hidden"
        assert cell_state == expected
    assert 'data-state="mine"' not in html
    rows = client.get(f"/api/rooms/{room.code}").json()["board"]
    assert sum(row.count("x") for row in rows) == 3 and "*" not in "".join(rows)
