"""The database thread knows the server's event loop (`games.server_loop`), through a ContextVar
the ASGI app sets, so a move announced there is handed to the loop's outbox, not sent on a loop
of the thread's own. These tests run their own plain `asyncio.run` loops: the suite's async tests
run on loops that know themselves already (tests/conftest.py), which would hide a missing note."""

import asyncio
import contextvars
import threading

import pytest
from asgiref.sync import sync_to_async

from games.broadcast import outbox
from games.rooms import joining
from games.server_loop import KnowsItsLoop, server_loop

from .helpers import connect, make_room, receive_until, send

CALLERS = contextvars.ContextVar("callers", default="none")
"""Something of the caller's that a task in a fresh context must not see."""


def test_work_for_a_connection_knows_the_loop_on_any_thread_and_in_fresh_tasks():
    seen: dict[str, object] = {}
    kept: list[contextvars.Context] = []

    async def in_fresh_context() -> tuple[object, str]:
        return await sync_to_async(server_loop)(), CALLERS.get()

    async def app(scope, receive, send):
        CALLERS.set("the connection's")
        seen["database thread"] = await sync_to_async(server_loop)()
        seen["other thread"] = await sync_to_async(server_loop, thread_sensitive=False)()
        # A task in a fresh context, as the outbox and the computer players start theirs: it
        # knows the loop and nothing else of the caller's context.
        fresh = contextvars.Context()
        task = asyncio.get_running_loop().create_task(in_fresh_context(), context=fresh)
        seen["fresh task"], seen["fresh task sees"] = await task
        kept.append(contextvars.copy_context())

    async def serve() -> asyncio.AbstractEventLoop:
        await KnowsItsLoop(app)({"type": "http"}, None, None)
        return asyncio.get_running_loop()

    loop = asyncio.run(serve())
    assert seen == {
        "database thread": loop,
        "other thread": loop,
        "fresh task": loop,
        "fresh task sees": "none",
    }
    assert kept[0].run(server_loop) is None  # that loop has stopped since


def test_without_the_app_no_thread_works_for_a_loop():
    async def plain() -> asyncio.AbstractEventLoop | None:
        return await sync_to_async(server_loop)()

    assert asyncio.run(plain()) is None
    assert server_loop() is None
    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(server_loop()))
    thread.start()
    thread.join()
    assert found == [None]


@pytest.mark.django_db(transaction=True)
def test_a_move_made_through_the_app_is_announced_on_the_servers_loop():
    room = make_room()
    ana = joining.join_room(room, "Ana")

    async def play() -> asyncio.AbstractEventLoop:
        socket = await connect(room, ana)
        await send(socket, action="flag", x=0, y=0)
        await receive_until(socket, 'data-state="flagged"')
        await socket.disconnect()
        return asyncio.get_running_loop()

    loop = asyncio.run(play())
    assert loop in outbox._outboxes  # handed to the loop's outbox, not sent from the thread
