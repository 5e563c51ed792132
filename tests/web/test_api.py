"""The JSON API: the contract's status codes and bodies, and moves that reach browsers live."""

import pytest
from asgiref.sync import sync_to_async

from games.engine import minesweeper as engine
from games.store.models import Game, Room
from tests.helpers.flags import safe
from tests.helpers.web import cell_states, connect, receive_until

pytestmark = pytest.mark.django_db


def create(client, **body):
    return client.post(
        "/api/rooms", {"game": "minesweeper", **body}, content_type="application/json"
    )


def move(client, code, token, **body):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(
        f"/api/rooms/{code}/moves", body, content_type="application/json", headers=headers
    )


@pytest.fixture
def room(client):
    created = create(client, preset="beginner", name="Robo")
    assert created.status_code == 201
    return created.json()


def test_create_join_read_and_move(client, room):
    assert room["url"].endswith(f"/r/{room['code']}/")
    joined = client.post(
        f"/api/rooms/{room['code']}/join", {"name": "Bo"}, content_type="application/json"
    )
    assert joined.status_code == 200 and joined.json()["player_token"] != room["player_token"]
    state = client.get(f"/api/rooms/{room['code']}").json()
    assert state["board"] == ["#########"] * 9
    assert (state["status"], state["version"], state["mines_left"]) == ("playing", 0, 10)
    assert [p["name"] for p in state["players"]] == ["Robo", "Bo"]
    answer = move(client, room["code"], room["player_token"], action="reveal", x=4, y=4)
    assert answer.status_code == 200
    body = answer.json()
    assert body["version"] == 1 and body["status"] == "playing"
    assert {"x": 4, "y": 4, "state": "revealed", "count": 0} in body["changed"]
    board = client.get(f"/api/rooms/{room['code']}").json()["board"]
    assert board[4][4] == "_"
    assert all(ch in "#_12345678" for row in board for ch in row)


def test_custom_sizes_and_their_limits(client):
    assert create(client, width=30, height=20, mines=100).status_code == 201
    for body, message in [
        (
            {"width": 5000, "height": 3, "mines": 1},
            "width must be a whole number from 2 to 50, got 5000.",
        ),
        ({"width": 40, "height": 1, "mines": 1}, "height"),
        ({"width": 9, "height": 9, "mines": 81}, "takes 1 to 72"),
        ({"width": 9, "height": 9}, "mines missing"),
        ({"preset": "huge"}, "preset"),
        ({"game": "chess"}, "game"),
        ({"width": "nine", "height": 9, "mines": 10}, "width"),
    ]:
        response = create(client, **body)
        assert response.status_code == 400, body
        assert message in response.json()["error"]
    assert Room.objects.count() == 1


@pytest.mark.parametrize(("width", "height"), [(2, 2), (2, 3), (3, 2), (3, 3)])
def test_a_board_too_small_for_mines_says_so(client, width, height):
    response = create(client, width=width, height=height, mines=1)
    assert response.status_code == 400
    assert response.json() == {
        "error": f"A {width}×{height} board is too small for mines: the first click and its "
        "neighbours cover it. Make it at least 4 cells wide or high."
    }


def join(client, code, name):
    return client.post(f"/api/rooms/{code}/join", {"name": name}, content_type="application/json")


def test_names_are_unique_in_a_room_and_the_join_says_which_one_you_got(client, room):
    code = room["code"]
    answers = [join(client, code, name).json() for name in ("Bo", "bo", "BO", "Robo", "bo 2")]
    assert [answer["name"] for answer in answers] == ["Bo", "bo 2", "BO 3", "Robo 2", "bo 2 2"]
    assert all(answer["player_token"] for answer in answers)
    players = client.get(f"/api/rooms/{code}").json()["players"]
    assert [p["name"] for p in players] == ["Robo", "Bo", "bo 2", "BO 3", "Robo 2", "bo 2 2"]
    long = "x" * 24
    assert [join(client, code, long).json()["name"] for _ in range(2)] == [long, "x" * 22 + " 2"]


def test_tictactoe_state_names_the_winner_and_the_readers_mark(client):
    created = create(client, game="tictactoe", x="human", o="human", name="Ana").json()
    code, ana = created["code"], created["player_token"]
    bo = join(client, code, "Bo").json()["player_token"]

    def read(token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return client.get(f"/api/rooms/{code}", headers=headers).json()

    assert (read()["winner"], read()["you"]) == (None, None)
    assert (read(ana)["you"], read(bo)["you"], read("not-a-token")["you"]) == ("X", "O", None)
    for token, cell in ((ana, 0), (bo, 3), (ana, 1), (bo, 4), (ana, 2)):
        assert move(client, code, token, action="mark", cell=cell).status_code == 200
    assert (read()["status"], read()["winner"], read(bo)["you"]) == ("won", "X", "O")
    move(client, code, bo, action="new_game")  # a rematch swaps the marks
    assert (read()["winner"], read(ana)["you"], read(bo)["you"]) == (None, "O", "X")


def test_minesweeper_state_has_no_tictactoe_fields(client, room):
    state = client.get(
        f"/api/rooms/{room['code']}", headers={"Authorization": f"Bearer {room['player_token']}"}
    ).json()
    assert "winner" not in state and "you" not in state and state["mines_left"] == 10


def test_error_codes(client, room):
    code, token = room["code"], room["player_token"]
    assert client.get("/api/rooms/nope").status_code == 404
    assert move(client, "nope", token, action="reveal", x=0, y=0).status_code == 404
    assert move(client, code, None, action="reveal", x=0, y=0).status_code == 401
    assert move(client, code, "wrong", action="reveal", x=0, y=0).status_code == 403
    for body in ({"action": "reveal", "x": 9, "y": 0}, {"action": "dance"}, {"x": 1}):
        response = move(client, code, token, **body)
        assert response.status_code == 400
        assert response.json()["error"]
    move(client, code, token, action="reveal", x=4, y=4)
    game = Game.objects.get(room__code=code)
    mine = min(engine.from_dict(game.state).field.mines)
    assert (
        move(client, code, token, action="reveal", x=mine % 9, y=mine // 9).json()["status"]
        == "lost"
    )
    refused = move(client, code, token, action="reveal", x=0, y=0)
    assert refused.status_code == 409 and "over" in refused.json()["error"]
    assert client.get(f"/api/rooms/{code}").json()["board"][mine // 9][mine % 9] == "!"
    assert move(client, code, token, action="new_game").json()["version"] == 0


@pytest.mark.django_db(transaction=True)
async def test_api_moves_appear_live_in_browsers(async_client):
    created = await async_client.post(
        "/api/rooms", {"game": "minesweeper", "preset": "beginner"}, content_type="application/json"
    )
    body = created.json()
    room = await sync_to_async(Room.objects.get)(code=body["code"])
    spectator = await connect(room, watch=True)
    response = await async_client.post(
        f"/api/rooms/{room.code}/moves",
        {"action": "flag", "x": 2, "y": 3},
        content_type="application/json",
        headers={"Authorization": f"Bearer {body['player_token']}"},
    )
    assert response.status_code == 200
    assert cell_states(await receive_until(spectator, 'id="game-meta"'))[(2, 3)] == "flagged"
    await spectator.disconnect()


def test_schema_and_docs_are_served(client):
    schema = client.get("/api/openapi.json").json()
    assert set(schema["paths"]) == {
        "/api/rooms",
        "/api/rooms/{code}",
        "/api/rooms/{code}/join",
        "/api/rooms/{code}/moves",
        "/api/rooms/{code}/hint",
        "/api/rooms/{code}/games/{number}",
        "/api/rooms/{code}/seats/{seat}/revoke",
        "/api/rooms/{code}/chat",
        "/api/rooms/{code}/host",
        "/api/rooms/{code}/leave",
        "/api/accounts/token",
        "/api/players/{username}",
        "/api/daily",
        "/api/daily/play",
        "/api/daily/{day}/results",
        "/api/seeks",
        "/api/seeks/{seek_id}/accept",
    }
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content


@pytest.mark.parametrize("game", ["tictactoe", "flags"])
def test_mid_game_only_the_host_may_start_a_new_game_and_never_one_without_a_side(client, game):
    """A new game swaps the sides and leaves the one under way unfinished for ever: the guest
    and a third joiner with no side are refused (409) while it runs, the host is not."""
    created = create(client, game=game, x="human", o="human", name="Ana").json()
    code, ana = created["code"], created["player_token"]
    bo, cy = (join(client, code, name).json()["player_token"] for name in ("Bo", "Cy"))
    room = Room.objects.get(code=code)
    if game == "tictactoe":
        opening = {"action": "mark", "cell": 0}
    else:
        x, y = safe(room)
        opening = {"action": "reveal", "x": x, "y": y}
    assert move(client, code, ana, **opening).status_code == 200
    for token, why in ((bo, "only the host"), (cy, "no side")):
        refused = move(client, code, token, action="new_game")
        assert refused.status_code == 409 and why in refused.json()["error"]
    first = Game.objects.get(room=room, number=1)
    assert (first.status, first.version, room.games.count()) == ("playing", 1, 1)
    assert move(client, code, ana, action="new_game").status_code == 200  # the host calls it off
    assert room.games.count() == 2


@pytest.mark.parametrize("debug", [True, False])
def test_a_body_past_the_size_limit_gets_the_json_413(client, settings, debug):
    settings.DEBUG = debug
    body = '{"name": "' + "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + '"}'
    answer = client.post("/api/rooms", body, content_type="application/json")
    assert answer.status_code == 413 and answer["Content-Type"].startswith("application/json")
    assert "too large" in answer.json()["error"]
    assert not Room.objects.exists()
