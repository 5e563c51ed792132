"""The host deletes a room over the API: its code is gone, and everyone in it is told and their
sockets closed with 4404 (docs/api.md, "Endpoints")."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import services
from games.models import Game, Room

from .helpers import TIMEOUT, connect, make_room, receive_until
from .test_bot_sockets import bot, event

pytestmark = pytest.mark.django_db(transaction=True)


def delete(code: str, token: str | None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().delete(f"/api/rooms/{code}", **headers)


async def test_the_host_deletes_the_room_and_every_socket_is_told_and_closed():
    room = await sync_to_async(make_room)()
    ana = await sync_to_async(services.join_room)(room, "Ana")
    bo = await sync_to_async(services.join_room)(room, "Bo")
    page, watcher = await connect(room, bo), await connect(room, watch=True)
    robot = await bot(room, bo.token)
    await event(robot, "snapshot")
    refused = await sync_to_async(delete)(room.code, bo.token)
    assert refused.status_code == 403 and "host" in refused.json()["error"]
    assert (await sync_to_async(delete)(room.code, None)).status_code == 401
    assert await sync_to_async(Room.objects.filter(pk=room.pk).exists)()
    answer = await sync_to_async(delete)(room.code, ana.token)
    assert answer.status_code == 204
    for socket in (page, watcher):
        assert "The host closed this room." in await receive_until(socket, "closed this room")
        assert (await socket.receive_output(timeout=TIMEOUT))["code"] == 4404
    told = await event(robot, "error")
    assert told["error"] == "The host closed this room."
    assert (await robot.receive_output(timeout=TIMEOUT))["code"] == 4404
    assert not await sync_to_async(Game.objects.filter(room_id=room.pk).exists)()
    gone = await sync_to_async(Client().get)(f"/api/rooms/{room.code}")
    assert gone.status_code == 404 and json.loads(gone.content)["error"]
    assert (await sync_to_async(delete)(room.code, ana.token)).status_code == 404
