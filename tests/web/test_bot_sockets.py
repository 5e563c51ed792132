"""Bots on the room websocket: a seat's token instead of a session, JSON events instead of HTML
(docs/contracts.md, "Bots on the websocket"), for every kind; and a kind's clock, whose timed events
reach every screen as moves do."""

import asyncio
import threading
import time
from dataclasses import replace

import pytest
from asgiref.sync import sync_to_async

from games.kinds import KINDS, kind_of
from games.kinds.table import COMPUTER_SEAT, Applied, Clock, PerSeatBoards
from games.rooms import autoplay, joining, playing
from games.store.models import Move, Room
from tests.helpers.bots import bot, event
from tests.helpers.toy_kind.kind import LIGHTS, LIGHTS_OUT, settings_from, snapshot_html
from tests.helpers.web import TIMEOUT, connect, make_room, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_bot_plays_co_op_with_its_token_and_reads_json_events():
    room = await sync_to_async(make_room)(9, 9, 10)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token)
    snapshot = await event(socket)
    assert snapshot["type"] == "snapshot" and snapshot["game"] == "minesweeper"
    assert snapshot["version"] == 0 and snapshot["board"] == ["#" * 9] * 9
    page = await connect(room, ana)  # a page's roster and presence are not for the bot
    await send(socket, action="reveal", x=4, y=4)
    move = await event(socket, "move")  # and an `ack`, in either order (test_bot_replies)
    assert move["type"] == "move" and move["version"] == 1 and move["status"] in ("playing", "won")
    assert {"x": 4, "y": 4} in [{"x": c["x"], "y": c["y"]} for c in move["cells"]]
    assert all(c["state"] == "revealed" for c in move["cells"])
    assert 'data-version="1"' in await receive_until(page, 'id="game-meta"')  # pages as ever
    await send(page, action="flag", x=4, y=4)  # a refused move of the page's: the bot hears none
    await send(socket, action="reveal", x=99, y=0)
    error = await event(socket, "error")
    assert error["type"] == "error" and "99" in error["error"]
    await send(socket, action="sync")
    again = await event(socket, "snapshot")
    assert again["type"] == "snapshot" and again["version"] == 1
    for communicator in (socket, page):
        await communicator.disconnect()


async def test_a_bot_without_headers_uses_the_query_and_a_wrong_token_is_refused():
    room = await sync_to_async(make_room)(9, 9, 10)
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token, how="query")
    assert (await event(socket))["type"] == "snapshot"
    await socket.disconnect()
    stranger = await bot(room, "not-a-token", how="query")
    refused = await event(stranger)
    assert refused["type"] == "error" and "token" in refused["error"]
    assert (await stranger.receive_output(timeout=TIMEOUT))["code"] == 4403
    await stranger.disconnect()
    watcher = await bot(room, None, how="query")  # no token: a watching bot
    assert (await event(watcher))["type"] == "snapshot"
    await send(watcher, action="reveal", x=0, y=0)
    assert "Spectators" in (await event(watcher, "error"))["error"]
    await watcher.disconnect()


async def test_a_tictactoe_bot_sees_its_mark_and_gets_a_snapshot_of_each_new_game():
    settings = kind_of("tictactoe").setup.options(game="tictactoe", o="human").settings()
    room = await sync_to_async(joining.create_room)("tictactoe", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    robo = await sync_to_async(joining.join_room)(room, "Robo")
    socket = await bot(room, robo.token)
    first = await event(socket)
    assert first["you"] == "O" and first["board"] == ["...", "...", "..."]
    page = await connect(room, ana)
    await send(page, action="mark", cell=4)
    placed = await event(socket, "move")
    assert placed["cells"] == [{"cell": 4, "mark": "X"}] and placed["version"] == 1
    await send(page, action="new_game", game=1)  # mid-game: the host's to call (Ana)
    rematch = await event(socket, "snapshot")
    assert rematch["number"] == 2 and rematch["version"] == 0
    assert rematch["you"] == "X"  # a rematch swaps the marks; the bot learns its new one
    for communicator in (socket, page):
        await communicator.disconnect()


@pytest.fixture
def private_lights(monkeypatch):
    """Lights Out whose board is each seat's own (as a race's): only the mover's bot sees
    what a move changed."""
    per_seat = PerSeatBoards(lambda room, game, seat: snapshot_html(room, game), lambda room: 0)
    kind = replace(LIGHTS_OUT, per_seat_boards=per_seat)
    monkeypatch.setitem(KINDS, LIGHTS, kind)
    return kind


async def test_with_private_boards_only_the_movers_bot_gets_the_cells(private_lights):
    room = await sync_to_async(joining.create_room)(LIGHTS, settings_from({}))
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    anas, bos = await bot(room, ana.token), await bot(room, bo.token)
    for socket in (anas, bos):
        await event(socket, "snapshot")
    await send(anas, action="mark", cell=0)
    mine, theirs = await event(anas, "move"), await event(bos, "move")
    assert mine["version"] == theirs["version"] == 1
    assert mine["cells"] == [{"cell": 0, "on": False}, {"cell": 1, "on": False}]
    assert theirs["cells"] == []
    for socket in (anas, bos):
        await socket.disconnect()


def blackout_at(when: float):
    """Lights Out with a clock: at `when` every light goes off by itself."""

    def due(state: dict, params: dict) -> float | None:
        return when if any(state["lights"]) else None

    def tick(state: dict, params: dict, now: float) -> Applied | None:
        lit = [n for n, on in enumerate(state["lights"]) if on]
        if now < when or not lit:
            return None
        return Applied({"lights": [False] * len(state["lights"])}, "won", tuple(lit))

    return Clock(due=due, tick=tick)


async def test_a_kinds_clock_ticks_once_when_due_and_everyone_sees_it(monkeypatch):
    kind = replace(LIGHTS_OUT, clock=blackout_at(time.time() + 0.5))
    monkeypatch.setitem(KINDS, LIGHTS, kind)
    room = await sync_to_async(joining.create_room)(LIGHTS, settings_from({}))
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    page, watcher = await connect(room, ana), await connect(room, watch=True)
    robot = await bot(room, ana.token)
    await event(robot, "snapshot")
    for socket in (page, watcher):
        dark = await receive_until(socket, 'id="light-4"')
        assert 'data-status="won"' in dark and 'data-version="1"' in dark
    ticked = await event(robot, "move")
    assert ticked["version"] == 1 and ticked["status"] == "won"
    await autoplay.clock_idle(room)  # nothing more is due: the driver stopped by itself
    assert await sync_to_async(playing.tick)(room) is None  # a second process finds nothing
    log = Move.objects.filter(game__room=room).values_list("player", "seat", "action")
    assert await sync_to_async(list)(log) == [(None, COMPUTER_SEAT, "tick")]
    for socket in (page, watcher, robot):
        await socket.disconnect()


async def test_a_clock_wake_up_during_the_drivers_read_is_not_lost(monkeypatch):
    """The interleaving seen once in 200 timed rooms, made certain: the driver reads "nothing
    timed", and before it acts on that read a move sets a timer and wakes the driver. The
    driver must look again rather than stop, else the timer never fires."""
    when: list[float | None] = [None]
    lights_clock = blackout_at(0.0)
    clock = Clock(
        due=lambda state, params: None if when[0] is None else lights_clock.due(state, params),
        tick=lambda state, params, now: lights_clock.tick(state, params, now),
    )
    monkeypatch.setitem(KINDS, LIGHTS, replace(LIGHTS_OUT, clock=clock))
    room = await sync_to_async(joining.create_room)(LIGHTS, settings_from({}))
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    loop, real_due, woken = asyncio.get_running_loop(), playing.clock_due, threading.Event()

    def read_then_wake(read: Room):
        """The real read, then the timer set and the driver woken before the read returns."""
        due = real_due(read)
        if when[0] is None:
            when[0] = time.time()
            loop.call_soon_threadsafe(lambda: (autoplay.schedule(read), woken.set()))
            assert woken.wait(TIMEOUT)
        return due

    monkeypatch.setattr(playing, "clock_due", read_then_wake)
    robot = await bot(room, ana.token)  # its connection starts the driver
    await event(robot, "snapshot")
    ticked = await event(robot, "move")
    assert ticked["status"] == "won"
    await autoplay.clock_idle(room)
    await robot.disconnect()
