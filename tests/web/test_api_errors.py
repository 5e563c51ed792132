"""Every error under /api/ is JSON, whichever layer made it; a 401 says how to authenticate;
and no URL is a 500: the room's websocket without its trailing slash opens the room, and any
other websocket path closes with 4404 (docs/api.md, "Errors")."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.rooms import joining
from games.store.models import Room

from .helpers import TIMEOUT, make_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def code():
    room = make_room()
    joining.join_room(room, "Ana")
    return room.code


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/api/rooms/{code}/moves", 405),
        ("delete", "/api/rooms/{code}/join", 405),
        ("post", "/api/rooms/", 404),
        ("get", "/api/rooms/{code}/", 404),
        ("post", "/api/rooms/{code}/moves/", 404),
        ("get", "/api/no-such-thing", 404),
        ("get", "/api/rooms/NOPE9", 404),
        ("post", "/api/rooms/{code}/moves", 401),
        ("post", "/api/rooms/{code}/hint", 401),
        ("put", "/api/rooms", 405),
    ],
)
def test_every_api_error_is_json(client, code, method, path, status):
    send = getattr(client, method)
    url = path.format(code=code)
    answer = send(url) if method == "get" else send(url, "{}", content_type="application/json")
    assert answer.status_code == status
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"]
    if status == 405:
        assert answer["Allow"] and answer["Allow"] in answer.json()["error"]
    if status == 401:
        assert answer["WWW-Authenticate"].startswith("Bearer ")


def test_a_trailing_slash_is_named_in_the_404(client):
    answer = client.post("/api/rooms/", "{}", content_type="application/json")
    assert "without a slash" in answer.json()["error"]


def test_pages_keep_their_html_404(client):
    answer = client.get("/no-such-page/")
    assert answer.status_code == 404 and answer["Content-Type"].startswith("text/html")


def test_the_websocket_path_over_http_is_a_404_not_a_500(client, code):
    for path in (f"/ws/r/{code}", f"/ws/r/{code}/"):
        assert client.get(path).status_code == 404


async def test_the_room_socket_without_its_slash_opens_the_room():
    room = await sync_to_async(make_room)()
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = WebsocketCommunicator(
        application,
        f"/ws/r/{room.code}",
        headers=[(b"authorization", f"Bearer {robo.token}".encode())],
        subprotocols=["json"],
    )
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    assert json.loads(await socket.receive_from(timeout=TIMEOUT))["type"] == "snapshot"
    await socket.disconnect()


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/r/", "/ws/r/a/b/", "/"])
async def test_any_other_websocket_path_closes_with_4404(path):
    socket = WebsocketCommunicator(application, path + "?format=json")
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    error = json.loads(await socket.receive_from(timeout=TIMEOUT))
    assert error["type"] == "error" and "/ws/r/<code>/" in error["error"]
    assert await socket.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4404}


def test_an_unknown_action_on_moves_lists_only_what_moves_takes(client, code):
    token = joining.join_room(Room.objects.get(code=code), "Bo").token
    for action in ("dance", "hover"):
        answer = client.post(
            f"/api/rooms/{code}/moves",
            {"action": action, "x": 0, "y": 0},
            content_type="application/json",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 400
        listed = answer.json()["error"].split(": ", 1)[1]
        assert "reveal" in listed and "new_game" in listed
        assert "hint" not in listed and "sync" not in listed and "hover" not in listed


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["hint", "seats/2/revoke"])
def test_an_endpoint_without_a_body_refuses_one_that_is_not_json(client, path):
    """'All bodies are JSON': a text/plain body is 415 at the doors that take none, as at the
    others (it was answered as if there were no body)."""
    created = client.post(
        "/api/rooms", {"game": "minesweeper", "preset": "beginner"}, content_type="application/json"
    ).json()
    answer = client.post(
        f"/api/rooms/{created['code']}/{path}",
        "hello",
        content_type="text/plain",
        HTTP_AUTHORIZATION=f"Bearer {created['player_token']}",
    )
    assert answer.status_code == 415
    assert answer.json() == {
        "error": "Send the body as JSON, with 'Content-Type: application/json'."
    }
    plain = client.generic(
        "POST",
        f"/api/rooms/{created['code']}/hint",
        HTTP_AUTHORIZATION=f"Bearer {created['player_token']}",
    )
    assert plain.status_code == 409  # no body at all: the first click is always safe
