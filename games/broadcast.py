"""Send rendered HTML to everyone in a room through the channel layer.

Fragments are rendered once here and fanned out as text, so a room with a hundred spectators costs
one render per move, not a hundred. Called after commit (see `services`), from any thread.

In a server, every database call of a process runs on one thread (`database_sync_to_async`), so
that thread must not wait for the channel layer (a Redis round trip, or the event loop being
free): messages go to an outbox on the server's event loop, which one task per loop sends in
order. Outside a server (management commands, scripts) `send` delivers before it returns.
"""

import asyncio
import logging
import os
import weakref
from types import ModuleType

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .models import Game, Player, Room
from .play.common import Applied


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


def send(room_id: int, html: str) -> None:
    message = {"type": "room.html", "html": html}
    loop = _server_loop()
    if loop is None:
        try:
            async_to_sync(get_channel_layer().group_send)(group_name(room_id), message)
        except LAYER_ERRORS as error:
            log.warning("channel layer unavailable, room %s not told: %s", room_id, error)
    else:
        loop.call_soon_threadsafe(_post, loop, group_name(room_id), message)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop this thread works for, when it is a `sync_to_async` thread (asgiref
    notes the loop there for `async_to_sync`)."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() else None


def _post(loop: asyncio.AbstractEventLoop, group: str, message: dict[str, str]) -> None:
    """On the loop: queue the message behind the earlier ones."""
    outbox = _outboxes.get(loop)
    if outbox is None:
        outbox = _outboxes[loop] = asyncio.Queue()
        loop.create_task(_deliver(outbox), name="broadcast-outbox")
    if outbox.qsize() >= OUTBOX_LIMIT:
        log.warning("broadcast outbox full (%d); dropping a message for %s", OUTBOX_LIMIT, group)
        return
    outbox.put_nowait((group, message))


async def _deliver(outbox: asyncio.Queue) -> None:
    while True:
        group, message = await outbox.get()
        try:
            await get_channel_layer().group_send(group, message)
        except LAYER_ERRORS as error:
            log.warning("channel layer unavailable, %s not told: %s", group, error)
        except Exception:
            log.exception("could not send a message to %s", group)


def renderer(kind: str) -> ModuleType:
    if kind == Room.Kind.TICTACTOE:
        from . import rendering_tictactoe

        return rendering_tictactoe
    from . import rendering

    return rendering


def move(room: Room, game: Game, player: Player | None, applied: Applied) -> None:
    """A move's fragments; `player` is None for a computer's move. `room` is the mover's copy,
    maybe minutes old: renderers take from it only what never changes, and fetch the rest."""
    send(room.pk, renderer(room.kind).move_html(room, game, applied, player))


def snapshot(room_id: int) -> None:
    room = Room.objects.get(pk=room_id)
    send(room.pk, snapshot_html(room))


def snapshot_html(room: Room) -> str:
    return renderer(room.kind).snapshot_html(room, room.current_game())


def roster(room_id: int) -> None:
    send(room_id, roster_html(room_id))


def roster_html(room_id: int) -> str:
    room = Room.objects.get(pk=room_id)
    return renderer(room.kind).roster_html(room, room.current_game())


def hint(room_id: int, asker: str, cell: tuple[int, int] | None) -> None:
    """A hint for everyone (Minesweeper): the cell highlighted, who asked, the hint counter."""
    room = Room.objects.get(pk=room_id)
    send(room.pk, renderer(room.kind).hint_html(room, room.current_game(), asker, cell))


def bot_changed(room_id: int, host: str, on: bool, stuck: bool) -> None:
    """The Solver bot joined or left (Minesweeper): the roster and a line saying so."""
    room = Room.objects.get(pk=room_id)
    send(room.pk, renderer(room.kind).bot_html(room, room.current_game(), host, on, stuck))
