"""Channels' `dispatch` less its database trip per frame (the `dispatch` speed shortcut).

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


async def dispatch(consumer: AsyncConsumer, message: dict[str, Any]) -> None:
    """Channels' `AsyncConsumer.dispatch`, less its `aclose_old_connections()`."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)
