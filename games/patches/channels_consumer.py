"""A consumer without a channel of its own, served straight from Daphne: Channels' `__call__` and
`dispatch` less two costs per message (the `serve` and `dispatch` speed shortcuts).

`AsyncConsumer.__call__` hands every message through `await_many_dispatch`, a task and an
`asyncio.wait` per frame: two more turns of the event loop before a move reaches `receive`.
`serve` sets what `__call__` sets on a consumer whose `channel_layer_alias` is None (`scope`,
`channel_layer`, `base_send`) and awaits each message from the server itself.

`AsyncConsumer.dispatch` first awaits `aclose_old_connections()`, a trip to the one database
thread before every frame, pointer positions included, queued behind the moves of the whole
process. `database_sync_to_async`, which every database call of the consumer goes through, makes
the same check before and after each call; `tests/integration/test_database_restart.py` shows
moves going on alike with and without it after PostgreSQL drops the app's connections.

What `__call__` sets is Channels' internal: `tests/web/test_internals.py`
(`test_channels_consumer_entry_still_sets_only_what_serve_sets`) fails when an upgrade sets more.
"""

from typing import Any

from channels.consumer import AsyncConsumer, get_handler_name
from channels.exceptions import StopConsumer


async def serve(consumer: AsyncConsumer, scope: Any, receive: Any, send: Any) -> None:
    """Channels' `AsyncConsumer.__call__` for a consumer without a channel layer."""
    consumer.scope = scope
    consumer.channel_layer = None
    consumer.base_send = send
    try:
        while True:
            await dispatch(consumer, await receive())
    except StopConsumer:
        pass


async def dispatch(consumer: AsyncConsumer, message: dict[str, Any]) -> None:
    """Channels' `AsyncConsumer.dispatch`, less its `aclose_old_connections()`."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)
