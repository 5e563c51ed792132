"""Which event loop a synchronous thread works for, told through a ContextVar.

A database call made through `sync_to_async` (Channels' `database_sync_to_async`, Django's
handler for a view) runs on a worker thread, in a copy of the calling task's context: asgiref
documents that it copies contextvars both ways. Announcing a move from that thread must not wait
for the channel layer, so `outbox` hands the message to the server's loop instead, and
`rooms.autoplay.wake` starts computer players there; without the loop they would send on a loop of
their own in that thread (a Redis round trip on the one database thread of the process), and
the in-memory layer's queues, which belong to the server's loop and are not thread-safe, would be
written from another thread.

The loop is noted by the loop's own side: `KnowsItsLoop`, the outermost ASGI app (`config.asgi`),
notes it in the context of every connection, and has the loop note it in every task started
afterwards (`loop.set_task_factory`), so tasks started in a fresh context (the outbox's, the
computer players', the shutdown's goodbyes) know it too. The test suite's event loops do the same
(`new_event_loop`, from tests/conftest.py). This replaced reading asgiref's private
`SyncToAsync.threadlocal` (issue 27).
"""

import asyncio
import contextvars
import os
from collections.abc import Coroutine
from typing import Any

_SERVER_LOOP: contextvars.ContextVar[tuple[asyncio.AbstractEventLoop, int] | None] = (
    contextvars.ContextVar("server_loop", default=None)
)
"""The loop and the process it runs in: a forked child inherits the value, not the loop."""


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this context's work is for; None under WSGI, in scripts, in a
    forked child (the loop is the parent's) and once the loop has stopped."""
    noted = _SERVER_LOOP.get()
    if noted is None:
        return None
    loop, pid = noted
    return loop if pid == os.getpid() and loop.is_running() else None


def note(loop: asyncio.AbstractEventLoop) -> None:
    """This context's work, and the `sync_to_async` calls made from it, are for `loop`; and so
    is every task `loop` starts from now on, whatever context it is given."""
    _SERVER_LOOP.set((loop, os.getpid()))
    factory = loop.get_task_factory()
    if not isinstance(factory, _NotingFactory):
        loop.set_task_factory(_NotingFactory(factory))


class _NotingFactory:
    """A task factory that notes its loop in each new task's context, then makes the task as
    the loop's previous factory would (asyncio's `Task` when there was none)."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **options: Any
    ) -> asyncio.Future[Any]:
        context = options.pop("context", None)
        if context is None:  # not `or`: a fresh, empty Context is falsy
            context = contextvars.copy_context()
        context.run(_SERVER_LOOP.set, (loop, os.getpid()))
        if self.previous is not None:
            task: asyncio.Future[Any] = self.previous(loop, coro, context=context, **options)
            return task
        return asyncio.Task(coro, loop=loop, context=context, **options)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop whose tasks know it, as the server's do once it has served a request."""
    loop = asyncio.new_event_loop()
    loop.set_task_factory(_NotingFactory(None))
    return loop


class KnowsItsLoop:
    """ASGI middleware: notes the running loop for the connection (`note`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        note(asyncio.get_running_loop())
        return await self.app(scope, receive, send)
