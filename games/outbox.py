"""Send rendered HTML to everyone in a room through the channel layer, from any thread.

In a server, every database call of a process runs on one thread (`database_sync_to_async`), so
that thread must not wait for the channel layer (a Redis round trip, or the event loop being
free): messages go to an outbox on the server's event loop, which one task per loop sends in
order. Outside a server (management commands, scripts) `send` delivers before it returns.
"""

import asyncio
import logging
import weakref
from collections.abc import Mapping
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from . import metrics
from .asgiref_loop import server_loop


def group_name(room_id: int) -> str:
    return f"room-{room_id}"


OUTBOX_LIMIT = 10_000
"""Messages waiting in one process; past this the layer is down or far behind, and new ones are
dropped, as a full channel drops them (clients see the version gap and ask for a snapshot)."""

log = logging.getLogger(__name__)

LAYER_ERRORS = (OSError, RedisConnectionError, RedisTimeoutError)
"""The channel layer (Redis) is unreachable. A move is committed before it is broadcast, so a lost
broadcast must not fail the request: clients resync from the snapshot every (re)connect sends."""

_outboxes: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue]" = (
    weakref.WeakKeyDictionary()
)


def message_of(fragment: str | Mapping[str, str]) -> dict[str, Any]:
    """The channel layer's message for one text for everyone, or one per audience
    (`games.audiences`): the layer carries plain dicts of strings."""
    if isinstance(fragment, str):
        return {"type": "room.html", "html": fragment}
    return {"type": "room.html", "texts": dict(fragment)}


def send(room_id: int, fragment: str | Mapping[str, str], started: float | None = None) -> None:
    """`started`: when the move announced reached the service (`metrics.move_started`), timed
    up to the hand-over to the channel layer."""
    message = message_of(fragment)
    loop = server_loop()
    if loop is None:
        try:
            async_to_sync(get_channel_layer().group_send)(group_name(room_id), message)
        except LAYER_ERRORS as error:
            metrics.LAYER_ERRORS.inc()
            log.warning("channel layer unavailable, room %s not told: %s", room_id, error)
        else:
            if started is not None:
                metrics.move_broadcast(started)
    else:
        loop.call_soon_threadsafe(_post, loop, group_name(room_id), message, started)


def _post(
    loop: asyncio.AbstractEventLoop, group: str, message: dict[str, Any], started: float | None
) -> None:
    """On the loop: queue the message behind the earlier ones."""
    outbox = _outboxes.get(loop)
    if outbox is None:
        outbox = _outboxes[loop] = asyncio.Queue()
        loop.create_task(_deliver(outbox), name="broadcast-outbox")
    if outbox.qsize() >= OUTBOX_LIMIT:
        log.warning("broadcast outbox full (%d); dropping a message for %s", OUTBOX_LIMIT, group)
        return
    outbox.put_nowait((group, message, started))


async def _deliver(outbox: asyncio.Queue) -> None:
    while True:
        group, message, started = await outbox.get()
        try:
            await get_channel_layer().group_send(group, message)
            if started is not None:
                metrics.move_broadcast(started)
        except LAYER_ERRORS as error:
            metrics.LAYER_ERRORS.inc()
            log.warning("channel layer unavailable, %s not told: %s", group, error)
        except Exception:
            log.exception("could not send a message to %s", group)
