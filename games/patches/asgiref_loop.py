"""Which event loop a synchronous thread works for: the one touch of asgiref's internals.

A database call made through `sync_to_async` runs on a worker thread; asgiref notes the event loop
it came from in `SyncToAsync.threadlocal` (for its own `async_to_sync`). Announcing a move from
that thread must not wait for the channel layer, so `outbox` hands the message to that loop
instead, and `live.autoplay.wake` starts computer players there. asgiref is pinned exactly in
pyproject.toml; `tests/web/test_internals.py` fails loudly if the attributes move.
"""

import asyncio
import os

from asgiref.sync import SyncToAsync


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this thread works for, when it is a `sync_to_async` thread of this
    process; None under WSGI, in scripts, and in a forked child (the loop is the parent's)."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() else None
