"""The JSON API's hint endpoint, the Solver bot through the API, and tic-tac-toe computers that
answer within the same request."""

import pytest

from games.engine import minesweeper as engine
from games.kinds.minesweeper import rules
from games.rooms import computers
from games.store.models import Game, Move, Room

from .helpers import fifty_fifty

GUESS = rules.NO_SAFE_CELL

pytestmark = pytest.mark.django_db


def create(client, **body):
    response = client.post("/api/rooms", body, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def post(client, path, token=None, **body):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(path, body, content_type="application/json", headers=headers)


def ask_hint(client, code, token):
    return post(client, f"/api/rooms/{code}/hint", token)


def move(client, code, token, **body):
    return post(client, f"/api/rooms/{code}/moves", token, **body)


def game_of(code) -> Game:
    return Game.objects.filter(room__code=code).order_by("-number").first()


def hints_used(code) -> int:
    return Room.objects.get(code=code).hints_used


# Hints ------------------------------------------------------------------------------------------


@pytest.fixture
def room(client):
    return create(client, game="minesweeper", preset="beginner", name="Robo")


def test_a_hint_names_a_hidden_safe_cell_and_counts(client, room):
    code, token = room["code"], room["player_token"]
    answer = ask_hint(client, code, token)  # before any reveal every cell is safe: not counted
    assert (answer.status_code, answer.json()) == (409, {"error": rules.FIRST_CLICK_SAFE})
    assert hints_used(code) == 0
    assert move(client, code, token, action="reveal", x=4, y=4).status_code == 200
    game = engine.from_dict(game_of(code).state)
    if game.is_over:  # the first reveal cleared the board
        return
    answer = ask_hint(client, code, token)
    if answer.status_code == 409:
        assert answer.json() == {"error": GUESS}
    else:
        x, y = answer.json()["x"], answer.json()["y"]
        cell = game.grid.index(x, y)
        assert cell not in game.revealed and cell not in game.field.mines
    assert hints_used(code) == 1
    assert game_of(code).version == 1  # hints are not moves
    assert Move.objects.filter(game=game_of(code)).count() == 1


def test_no_provable_cell_is_a_409_that_still_counts(client, room):
    Game.objects.filter(room__code=room["code"]).update(state=fifty_fifty())
    answer = ask_hint(client, room["code"], room["player_token"])
    assert (answer.status_code, answer.json()) == (409, {"error": GUESS})
    assert hints_used(room["code"]) == 1


def test_hint_errors(client, room):
    code, token = room["code"], room["player_token"]
    assert ask_hint(client, code, None).status_code == 401
    assert ask_hint(client, code, "not-a-token").status_code == 403
    assert ask_hint(client, "no-such-room", token).status_code == 404
    lost = {**game_of(code).state, "status": "lost", "field": [0], "exploded": [0]}
    Game.objects.filter(room__code=code).update(state=lost, status="lost")
    answer = ask_hint(client, code, token)
    assert answer.status_code == 409 and "The game is over" in answer.json()["error"]
    assert hints_used(code) == 0
    ttt = create(client, game="tictactoe", x="human", o="human")
    answer = ask_hint(client, ttt["code"], ttt["player_token"])
    assert answer.status_code == 400 and "Minesweeper" in answer.json()["error"]
    answer = move(client, code, token, action="hint")
    assert answer.status_code == 400 and "/hint" in answer.json()["error"]


# The Solver bot through the API ---------------------------------------------------------------


def test_the_host_seats_the_bot_and_it_does_not_play_within_the_request(client, room):
    code, token = room["code"], room["player_token"]
    guest = post(client, f"/api/rooms/{code}/join", name="Bo").json()["player_token"]
    answer = move(client, code, guest, action="add_bot")
    assert answer.status_code == 403 and "Only the host" in answer.json()["error"]
    answer = move(client, code, token, action="add_bot")
    assert answer.status_code == 200 and answer.json()["changed"] == []
    assert Room.objects.get(code=code).settings["bot"] is True
    assert rules.has_bot(game_of(code).params)
    # The bot plays live, from the server's event loop, never inside an API request.
    assert move(client, code, token, action="flag", x=0, y=0).json()["version"] == 1
    assert not Move.objects.filter(game=game_of(code), player=None).exists()
    assert move(client, code, token, action="remove_bot").status_code == 200
    assert not rules.has_bot(game_of(code).params)


# Tic-tac-toe computers --------------------------------------------------------------------------


def test_the_perfect_computers_reply_comes_back_in_changed(client):
    room = create(client, game="tictactoe", x="human", o="perfect")
    answer = move(client, room["code"], room["player_token"], action="mark", cell=0)
    assert answer.status_code == 200
    body = answer.json()
    assert body["changed"] == [{"cell": 0, "mark": "X"}, {"cell": 4, "mark": "O"}]
    assert (body["version"], body["status"]) == (2, "playing")
    board = client.get(f"/api/rooms/{room['code']}").json()["board"]
    assert board == ["X..", ".O.", "..."]


def test_a_computer_holding_x_opens_before_the_creator_reads_the_board(client):
    room = create(client, game="tictactoe", x="perfect", o="human")
    state = client.get(f"/api/rooms/{room['code']}").json()
    assert state["version"] == 1
    assert "".join(state["board"]).count("X") == 1
    mine = next(i for i, ch in enumerate("".join(state["board"])) if ch == ".")
    answer = move(client, room["code"], room["player_token"], action="mark", cell=mine)
    changed = answer.json()["changed"]
    assert changed[0] == {"cell": mine, "mark": "O"} and changed[1]["mark"] == "X"


def test_a_rematch_through_the_api_gets_the_computers_opening(client):
    room = create(client, game="tictactoe", x="human", o="perfect")
    code, token = room["code"], room["player_token"]
    answer = move(client, code, token, action="new_game")
    body = answer.json()
    assert [c["mark"] for c in body["changed"]] == ["X"]  # the computer holds X now
    assert body["version"] == 1 and game_of(code).number == 2


def test_computer_against_computer_plays_to_the_end_when_created(client):
    room = create(client, game="tictactoe", x="random", o="perfect")
    assert room["player_token"] is None
    state = client.get(f"/api/rooms/{room['code']}").json()
    assert state["status"] in ("won", "draw")
    game = game_of(room["code"])
    assert Move.objects.filter(game=game, player=None).count() == game.version == state["version"]
    assert game.state.get("winner") != "X"  # random never beats perfect
    assert computers.play_computer_turns(Room.objects.get(code=room["code"])) == []
