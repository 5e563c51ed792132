"""Channels' `dispatch` less its database trip per frame (the `dispatch` speed shortcut), and its
`__call__` less a task and a wait per idle socket (`serve`, the `serve` shortcut).

`AsyncConsumer.dispatch` first awaits `aclose_old_connections()`: a trip to the one database
thread before every frame from the browser, pointer positions included, queued behind the moves
of the whole process. `database_sync_to_async`, which every database call of the room consumer
goes through, makes the same check before and after each call, so the trip buys nothing:
`tests/integration/test_database_restart.py` shows moves going on alike with and without it
after PostgreSQL drops the app's connections. Measured, the trip was 14 % (2 sockets) and 23 %
(20 sockets) of Daphne's CPU per move (docs/operations.md, "Library internals").

What `dispatch` does around the handler is Channels' internal: `tests/web/test_internals.py`
(`test_channels_dispatch_still_only_closes_old_connections_before_the_handler`) fails when an
upgrade makes it do more.
"""

from typing import Any

from channels.consumer import AsyncConsumer, get_handler_name
from channels.exceptions import StopConsumer


async def dispatch(consumer: AsyncConsumer, message: dict[str, Any]) -> None:
    """Channels' `AsyncConsumer.dispatch`, less its `aclose_old_connections()`."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)


async def serve(consumer: AsyncConsumer, scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Channels' `AsyncConsumer.__call__` for a consumer with no channel of its own
    (`channel_layer_alias = None`), less `await_many_dispatch`. That runs `receive` in a task
    of its own and waits for it with `asyncio.wait` (a waiter, callbacks and the task's set
    entry), held for as long as the socket is idle, which a watching crowd's sockets are;
    with one source of messages a plain loop does the same, one message dispatched at a time.
    What `__call__` sets up is Channels' internal: `tests/web/test_internals.py`
    (`test_channels_call_still_sets_up_only_what_serve_does`) fails when an upgrade changes
    it. Measured: docs/performance.md, issue 28 (2,000 spectators)."""
    consumer.scope = scope
    consumer.channel_layer = None
    consumer.base_send = send
    try:
        while True:
            await consumer.dispatch(await receive())
    except StopConsumer:
        pass
