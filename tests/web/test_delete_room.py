"""The host deletes a room over the API: its code is gone, and everyone in it is told and their
sockets closed with 4404 (docs/api.md, "Endpoints")."""

import asyncio
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games.live import rosters
from games.rooms import autoplay, joining
from games.store.models import Game, Room

from .helpers import TIMEOUT, connect, make_room, receive_until, send
from .test_bot_sockets import bot, event

pytestmark = pytest.mark.django_db(transaction=True)


def delete(code: str, token: str | None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().delete(f"/api/rooms/{code}", **headers)


async def test_the_host_deletes_the_room_and_every_socket_is_told_and_closed():
    room = await sync_to_async(make_room)()
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
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


async def test_a_room_deleted_while_its_computer_plays_leaves_no_error(caplog):
    """The Solver bot's driver and the room's clock find the room gone and stop quietly."""
    room = await sync_to_async(make_room)(16, 16, 40)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robot = await bot(room, ana.token)
    await event(robot, "snapshot")
    await send(robot, action="add_bot")
    await send(robot, action="reveal", x=8, y=8)
    await event(robot, "move")
    assert (await sync_to_async(delete)(room.code, ana.token)).status_code == 204
    while (output := await robot.receive_output(timeout=TIMEOUT))["type"] == "websocket.send":
        pass  # the acks, the bot's moves, then the error saying the room is closed
    assert output["code"] == 4404
    await asyncio.wait_for(autoplay.idle(room), TIMEOUT)  # the driver looked and stopped
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_room_deleted_right_after_its_bot_hung_up_logs_nothing(caplog):
    """The pattern docs/api.md gives bots: play, close the socket, delete the room. The closed
    socket's presence news finds the room gone: nobody is left to tell, and that is no error."""
    for _ in range(3):
        room = await sync_to_async(make_room)()
        ana = await sync_to_async(joining.join_room)(room, "Ana")
        robot = await bot(room, ana.token)
        await event(robot, "snapshot")
        await robot.disconnect()
        assert (await sync_to_async(delete)(room.code, ana.token)).status_code == 204
        await rosters.settle()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
