"""The host revokes a seat's token: the old token is refused over HTTP (403) and its sockets,
pages' and bots', close with 4403; nobody else may revoke."""

import json

import pytest
from asgiref.sync import sync_to_async

from games.store.models import Room

from .helpers import TIMEOUT, connect, receive_until, send
from .test_bot_sockets import bot, event

pytestmark = pytest.mark.django_db(transaction=True)


def api_room(client) -> tuple[str, str, str]:
    body = {"game": "minesweeper", "preset": "beginner", "name": "Ana"}
    created = client.post("/api/rooms", body, content_type="application/json").json()
    code = created["code"]
    bo = client.post(f"/api/rooms/{code}/join", {"name": "Bo"}, content_type="application/json")
    return code, created["player_token"], bo.json()["player_token"]


def post(client, path: str, token: str, body: dict | None = None):
    return client.post(
        path,
        json.dumps(body or {}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def test_only_the_host_revokes_and_the_old_token_is_refused(client):
    code, ana, bo = api_room(client)
    assert post(client, f"/api/rooms/{code}/seats/0/revoke", bo).status_code == 403
    assert post(client, f"/api/rooms/{code}/seats/0/revoke", ana).status_code == 400  # own
    assert post(client, f"/api/rooms/{code}/seats/7/revoke", ana).status_code == 400
    revoked = post(client, f"/api/rooms/{code}/seats/1/revoke", ana)
    assert revoked.status_code == 200
    fresh = revoked.json()["player_token"]
    assert revoked.json()["name"] == "Bo" and fresh != bo
    move = {"action": "flag", "x": 0, "y": 0}
    assert post(client, f"/api/rooms/{code}/moves", bo, move).status_code == 403
    assert post(client, f"/api/rooms/{code}/moves", fresh, move).status_code == 200


async def test_the_revoked_seats_sockets_close_with_4403_and_others_stay(client):
    code, ana, bo = await sync_to_async(api_room)(client)
    room = await Room.objects.aget(code=code)
    players = {p.nickname: p async for p in room.players.all()}
    bo_page, ana_page = await connect(room, players["Bo"]), await connect(room, players["Ana"])
    bo_bot = await bot(room, bo)
    await event(bo_bot, "snapshot")
    await sync_to_async(post)(client, f"/api/rooms/{code}/seats/1/revoke", ana)
    assert "revoked" in await receive_until(bo_page, "revoked")
    assert "revoked" in (await event(bo_bot, "error"))["error"]
    for socket in (bo_page, bo_bot):
        closed = await socket.receive_output(timeout=TIMEOUT)
        while closed["type"] != "websocket.close":
            closed = await socket.receive_output(timeout=TIMEOUT)
        assert closed["code"] == 4403
    await send(ana_page, action="flag", x=0, y=0)  # Ana's page stays open and plays on
    await receive_until(ana_page, 'id="game-meta"[^>]*data-version="1"')
    await ana_page.disconnect()
