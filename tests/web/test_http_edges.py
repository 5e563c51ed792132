"""HTTP at its edges: HEAD where GET is taken (uptime monitors ask with HEAD), and the API's
answers to bodies and credentials of the wrong shape, each a JSON error that names its field."""

import json

import pytest

from games.models import Room

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
