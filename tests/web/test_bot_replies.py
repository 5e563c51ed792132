"""Every message a bot sends on the JSON websocket gets an answer: `ack` or `error`, with the
`id` it carried; moves name their mover's seat; hints and the Solver bot reach every bot; the
snapshot carries what `GET /api/rooms/<code>` does (docs/api.md, "Writing a bot")."""

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.kinds.race import rules as race_rules
from games.rooms import joining
from tests.helpers.bots import bot, event
from tests.helpers.web import make_room, send

pytestmark = pytest.mark.django_db(transaction=True)


async def events(socket: WebsocketCommunicator, *kinds: str) -> dict[str, dict[str, Any]]:
    """The first event of each of `kinds`, in whatever order they come."""
    found: dict[str, dict[str, Any]] = {}
    while len(found) < len(kinds):
        received = await event(socket)
        if received["type"] in kinds:
            found.setdefault(received["type"], received)
    return found


async def test_a_move_is_acknowledged_with_its_id_and_its_event_names_the_mover():
    room = await sync_to_async(make_room)(16, 16, 40)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token)
    snapshot = await event(socket, "snapshot")
    robo_seat = {"name": "Robo", "seat": robo.number, "online": False, "username": None}
    assert robo_seat in snapshot["players"]
    assert {p["name"] for p in snapshot["players"]} == {"Ana", "Robo"}
    assert snapshot["bot"] is False
    watcher = await bot(room, ana.token)
    await event(watcher, "snapshot")
    await send(socket, action="reveal", x=8, y=8, id="first")
    ack = await event(socket, "ack")
    assert ack == {
        "type": "ack",
        "action": "reveal",
        "id": "first",
        "number": 1,
        "version": 1,
        "status": "playing",
    }
    moved = await event(watcher, "move")
    assert moved["seat"] == robo.number and moved["version"] == 1
    await send(socket, action="reveal", x=8, y=8, id=7)  # a revealed cell: nothing changes
    again = await event(socket, "ack")
    assert again["id"] == 7 and again["version"] == 1
    await send(socket, action="reveal", x=99, y=0, id="off")
    refused = await event(socket, "error")
    assert refused["id"] == "off" and "99" in refused["error"]
    await send(socket, action="dance", id=["not", "an", "id"])  # an id of no echoed type
    assert "id" not in await event(socket, "error")
    await send(socket, action="sync", id="s")
    assert (await event(socket))["type"] == "ack"
    assert (await event(socket, "snapshot"))["version"] == 1
    for communicator in (socket, watcher):
        await communicator.disconnect()


async def test_a_stale_new_game_is_acknowledged_with_the_current_game():
    room = await sync_to_async(make_room)(9, 9, 10)
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token)
    await event(socket, "snapshot")
    await send(socket, action="new_game", game=1, id=1)
    assert (await event(socket, "ack"))["number"] == 2
    await send(socket, action="new_game", game=1, id=2)  # game 1 is gone: nothing starts
    stale = await event(socket, "ack")
    assert stale["id"] == 2 and stale["number"] == 2 and stale["version"] == 0
    await socket.disconnect()


async def test_a_hint_is_answered_to_its_asker_and_told_to_every_bot():
    room = await sync_to_async(make_room)(16, 16, 40)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket, other = await bot(room, robo.token), await bot(room, ana.token)
    for communicator in (socket, other):
        await event(communicator, "snapshot")
    await send(socket, action="reveal", x=8, y=8)
    await event(socket, "ack")
    await send(socket, action="hint", id="h")
    answer = await event(socket, "ack")
    told = await event(other, "hint")
    assert answer["id"] == "h" and answer["action"] == "hint"
    assert told["by"] == "Robo" and told["cell"] == answer["cell"]
    board = (await sync_to_async(Client().get)(f"/api/rooms/{room.code}")).json()["board"]
    if answer["cell"] is not None:  # None: a guess is needed
        assert board[answer["cell"]["y"]][answer["cell"]["x"]] == "#"
    for communicator in (socket, other):
        await communicator.disconnect()


async def test_seating_the_solver_bot_in_a_race_lobby_is_answered_and_shown():
    settings = race_rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    host = await sync_to_async(joining.join_room)(room, "Ana")
    socket = await bot(room, host.token)
    assert (await event(socket, "snapshot"))["bot"] is False
    await send(socket, action="add_bot", pace=1, id="bot")
    got = await events(socket, "ack", "bot")  # the event may overtake the answer
    assert got["ack"]["id"] == "bot"
    assert got["bot"]["on"] is True and got["bot"]["by"] == "Ana"
    read = await sync_to_async(Client().get)(f"/api/rooms/{room.code}")
    assert read.json()["bot"] is True
    await send(socket, action="start", id="go")
    got = await events(socket, "ack", "move")
    assert got["ack"]["id"] == "go" and got["move"]["seat"] == host.number
    token = {"HTTP_AUTHORIZATION": f"Bearer {host.token}"}
    read = await sync_to_async(Client().get)(f"/api/rooms/{room.code}", **token)
    race = read.json()["race"]
    racers = {r["seat"]: r["name"] for r in race["racers"]}
    assert racers[host.number] == "Ana" and "Solver bot" in racers.values()
    assert race["you"]["name"] == "Ana"
    await socket.disconnect()


async def test_an_id_too_long_to_repeat_is_refused_by_name_and_nothing_is_played():
    """An `id` the reply cannot repeat (over 64 characters, or not a string or integer) used to
    be dropped from the reply in silence: a bot matching replies by `id` waited for ever."""
    room = await sync_to_async(make_room)(9, 9, 10)
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token)
    await event(socket, "snapshot")
    for too_long in ("x" * 65, 2**53, 1.5, {"n": 1}):
        await send(socket, action="reveal", x=4, y=4, id=too_long)
        refused = await event(socket)
        assert refused["type"] == "error" and "id" not in refused
        assert refused["error"].startswith('"id" must be a string of at most 64 characters')
    assert (await sync_to_async(room.current_game)()).version == 0
    await send(socket, action="reveal", x=4, y=4, id="x" * 64)
    assert (await event(socket, "ack"))["id"] == "x" * 64
    await socket.disconnect()
