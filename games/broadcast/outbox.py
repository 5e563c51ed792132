"""Send rendered HTML to everyone in a room through the channel layer, from any thread.

In a server, every database call of a process runs on one thread (`database_sync_to_async`), so
that thread must not wait for the channel layer (a Redis round trip, or the event loop being
free): messages go to an outbox on the server's event loop, which one task per loop sends in
order: to the other processes through the layer, and to the room's sockets in this process
straight from that task (`live.relay`), the layer's copy sent first (`_everywhere`). Outside a server (management commands, scripts) `send`
delivers before it returns, and so does a database thread whose loop has stopped (a roster or a
move finishing as the server shuts down): asgiref's `async_to_sync` would hand the send to that
stopped loop and wait for ever, and the process would never exit.
"""

import asyncio
import contextvars
import logging
import weakref
from collections.abc import Mapping
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .. import metrics
from ..log_limit import warn
from ..protocol import audiences
from ..server_loop import server_loop
from . import local


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


def message_of(
    fragment: str | Mapping[str, str], controls: audiences.Controls | None = None
) -> dict[str, Any]:
    """The channel layer's message for one text for everyone, or one per audience
    (`games.protocol.audiences`), and the controls for some audiences (`audiences.Control`) in a
    key of their own: the layer carries plain dicts of strings (msgpack, through Redis)."""
    if not controls:
        if isinstance(fragment, str):
            return {"type": "room.html", "html": fragment}
        return {"type": "room.html", "texts": dict(fragment)}
    texts = {audiences.ALL: fragment} if isinstance(fragment, str) else dict(fragment)
    plain = {key: control.value for key, control in controls.items()}
    return {"type": "room.html", "texts": texts, "controls": plain}


def send(
    room_id: int,
    fragment: str | Mapping[str, str],
    started: float | None = None,
    order: tuple[int, int] | None = None,
    *,
    controls: audiences.Controls | None = None,
) -> None:
    """`started`: when the move announced reached the service (`metrics.move_started`), timed
    up to the hand-over to the channel layer. `order`: a move's (game number, version), by which
    each process hands the room's moves on in order (`live.reorder`). `controls`: what some
    audiences' sockets are told instead of a text (`audiences.Control`)."""
    message = message_of(fragment, controls)
    if order is not None:
        message["order"] = list(order)
    loop = server_loop()
    if loop is None:
        try:
            asyncio.run(_send_now(group_name(room_id), message))
        except LAYER_ERRORS as error:
            metrics.LAYER_ERRORS.inc()
            warn(
                log,
                "layer_unavailable",
                "channel layer unavailable, room %s not told: %s",
                room_id,
                error,
            )
        else:
            if started is not None:
                metrics.move_broadcast(started)
    else:
        # In a context of its own: the database thread's marks its calls as running on that one
        # thread, which would refuse database calls of tasks started from the outbox's task
        # (a socket's snapshot, `broadcast.local.hear_here`) as would-be deadlocks.
        group, context = group_name(room_id), contextvars.Context()
        loop.call_soon_threadsafe(_post, loop, group, message, started, context=context)


def anyone_hears(room_id: int) -> bool:
    """Whether a message sent to the room now could reach a socket. Only the in-memory layer
    (one process) knows that nobody can: the room has no subscription on this process's loop.
    A socket that subscribes after this answer reads its snapshot after it too, so a message
    left unrendered then, about something already committed, is missed by nobody. Taking a
    seat rendered the roster for a room nobody had opened yet, as every invite's first
    visitors do (docs/performance.md, issue 34)."""
    loop = server_loop()
    if loop is None or not isinstance(get_channel_layer(), InMemoryChannelLayer):
        return True
    return local.subscribed(loop, group_name(room_id))


SEND_NOW_SECONDS = 5.0
"""How long a send outside the server's loop may wait for the layer: the layer's Redis sockets
have no timeout (settings.REDIS_LAYER_CONFIG), and a process shutting down must not hang."""


async def _send_now(group: str, message: dict[str, Any]) -> None:
    """On a loop of its own (`asyncio.run`), never the thread's server loop, even a stopped one."""
    await asyncio.wait_for(get_channel_layer().group_send(group, message), SEND_NOW_SECONDS)


def _post(
    loop: asyncio.AbstractEventLoop, group: str, message: dict[str, Any], started: float | None
) -> None:
    """On the loop: queue the message behind the earlier ones."""
    outbox = _outboxes.get(loop)
    if outbox is None:
        outbox = _outboxes[loop] = asyncio.Queue()
        loop.create_task(_deliver(outbox), name="broadcast-outbox")
    if outbox.qsize() >= OUTBOX_LIMIT:
        warn(
            log,
            "outbox_full",
            "broadcast outbox full (%d); dropping a message for %s",
            OUTBOX_LIMIT,
            group,
        )
        return
    outbox.put_nowait((group, message, started))


async def _everywhere(group: str, message: dict[str, Any]) -> None:
    """To the other processes (the layer) and this one's sockets, the layer's copy sent first:
    this process's sockets of a crowded room take tens of milliseconds (2,000 spectators over
    two processes, issue 28: about 20 ms a thousand sockets), which the other processes' sockets
    waited for when they went first. One turn of the loop lets the send reach its socket write
    before the local pass, which needs no turn at all; the send's answer is awaited after it,
    so the room's messages still leave in order. The in-memory layer reaches no other process:
    there the sockets here go first, and the layer's copy (for any other channel of the group)
    after them, off the move's path."""
    here, layer = local.hearing_here(group, message), get_channel_layer()
    if here is not None and isinstance(layer, InMemoryChannelLayer):
        try:
            await here
        finally:
            await layer.group_send(group, message)
        return
    sending = asyncio.ensure_future(layer.group_send(group, message))
    try:
        if here is not None:
            await asyncio.sleep(0)
            await here
    finally:
        await sending


async def _deliver(outbox: asyncio.Queue) -> None:
    while True:
        group, message, started = await outbox.get()
        try:
            await _everywhere(group, message)
            if started is not None:
                metrics.move_broadcast(started)
        except LAYER_ERRORS as error:
            metrics.LAYER_ERRORS.inc()
            warn(
                log, "layer_unavailable", "channel layer unavailable, %s not told: %s", group, error
            )
        except Exception:
            log.exception("could not send a message to %s", group)
