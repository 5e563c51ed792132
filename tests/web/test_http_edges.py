"""HTTP at its edges: HEAD where GET is taken (uptime monitors ask with HEAD), and the API's
answers to bodies and credentials of the wrong shape, each a JSON error that names its field."""

import json

import pytest

from games.store.models import Room

pytestmark = pytest.mark.django_db


def api_room(client) -> tuple[str, str]:
    """A finished one-move co-op room by the API: (code, the host's token)."""
    body = {"game": "minesweeper", "preset": "beginner", "name": "Ana"}
    created = client.post("/api/rooms", body, content_type="application/json").json()
    return created["code"], created["player_token"]


def pages(code: str) -> list[str]:
    room = f"/r/{code}"
    return [
        "/",
        "/healthz",
        "/rooms/live/",
        "/on-now/",
        f"{room}/",
        f"{room}/watch/",
        f"{room}/preview.png",
        f"{room}/games/1/",
        f"{room}/games/1/chunks/0/",
        f"{room}/games/1/preview.png",
        f"{room}/rewind/",
        f"{room}/history/",
        "/records/",
    ]


def test_head_answers_every_page_as_get_does_without_a_body(client):
    code, token = api_room(client)
    auth = {"Authorization": f"Bearer {token}"}
    client.post(
        f"/api/rooms/{code}/moves",
        {"action": "reveal", "x": 0, "y": 0},
        content_type="application/json",
        headers=auth,
    )
    for path in pages(code):
        got, head = client.get(path), client.head(path)
        assert (path, head.status_code) == (path, got.status_code)
        assert got.status_code in (200, 302), path
        assert head.content == b""
        assert head["Content-Type"] == got["Content-Type"]


@pytest.mark.parametrize("action", [{}, [], 3, None])
def test_a_host_action_of_the_wrong_type_is_a_json_400_naming_the_field(client, action):
    code, token = api_room(client)
    answer = client.post(
        f"/api/rooms/{code}/host",
        json.dumps({"action": action}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(
        '"action" must be text' if action is not None else 'Missing "action"'
    )
    assert Room.objects.get(code=code).locked is False


def test_a_401_without_credentials_carries_no_error_code(client):
    """RFC 6750 §3.1: a request with no authentication information gets a challenge with no
    error code (a token that is no player's is a 403 here, never a 401)."""
    code, _ = api_room(client)
    for path in (f"/api/rooms/{code}/moves", f"/api/rooms/{code}/hint"):
        answer = client.post(path, "{}", content_type="application/json")
        assert answer.status_code == 401
        assert answer["WWW-Authenticate"] == 'Bearer realm="Minesweeper Live"'


def test_a_204_carries_no_content_type(client):
    code, token = api_room(client)
    answer = client.delete(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 204 and answer.content == b""
    assert "Content-Type" not in answer


def schema_of(client, name: str) -> dict:
    return client.get("/api/openapi.json").json()["components"]["schemas"][name]


def test_a_whole_float_is_an_integer_as_json_schema_says(client):
    """JSON has one number type: `9.0` is a JSON Schema integer, so the server takes it."""
    body = {"game": "minesweeper", "width": 9.0, "height": 9, "mines": 10.0, "name": "Ana"}
    created = client.post("/api/rooms", body, content_type="application/json")
    assert created.status_code == 201
    code, token = created.json()["code"], created.json()["player_token"]
    moved = client.post(
        f"/api/rooms/{code}/moves",
        {"action": "reveal", "x": 4.0, "y": 4.0},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert moved.status_code == 200 and moved.json()["version"] == 1
    half = client.post("/api/rooms", {**body, "width": 9.5}, content_type="application/json")
    assert half.status_code == 400 and "width" in half.json()["error"]


def test_an_empty_body_to_create_names_every_missing_field(client):
    answer = client.post("/api/rooms", {}, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["error"] == (
        "give a preset, or width, height and mines: width, height, mines missing."
    )
    create = client.get("/api/openapi.json").json()["components"]["schemas"]
    assert create["MinesweeperOptions"]["anyOf"] == [
        {"required": ["preset"]},
        {"required": ["width", "height", "mines"]},
    ]


def test_the_schema_refuses_the_blank_strings_the_server_refuses(client):
    code, _ = api_room(client)
    for blank in ("", "   "):
        answer = client.post(
            f"/api/rooms/{code}/join", {"name": blank}, content_type="application/json"
        )
        assert answer.status_code == 400 and answer.json()["error"].startswith("name")
    assert schema_of(client, "Join")["properties"]["name"]["pattern"] == r"\S"
    assert schema_of(client, "ChatIn")["properties"]["text"]["pattern"] == r"\S"
    assert schema_of(client, "MoveIn")["properties"]["action"]["minLength"] == 1


def test_join_and_chat_refuse_unknown_fields_by_name_as_create_and_moves_do(client):
    code, token = api_room(client)
    join = client.post(
        f"/api/rooms/{code}/join", {"name": "Bo", "nmae": "x"}, content_type="application/json"
    )
    assert join.status_code == 400 and join.json()["error"].startswith("nmae")
    chat = client.post(
        f"/api/rooms/{code}/chat",
        {"text": "hi", "channel": "spectators"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert chat.status_code == 400 and chat.json()["error"].startswith("channel")
    assert not Room.objects.get(code=code).players.filter(nickname="Bo").exists()
    for name in ("Join", "ChatIn"):
        assert schema_of(client, name)["additionalProperties"] is False
