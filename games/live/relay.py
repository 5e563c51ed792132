"""A room's messages reach each process once, and go out to its sockets of that room in one pass.

Channels' own way gives every socket a channel of the layer and puts it in the room's group. A
move in a room of N sockets then makes N copies of the message, N queue reads, N task wake-ups
and N dispatches before each socket's bytes are written: about half of what a socket cost per
move (docs/performance.md). Here a process joins a room's group once, with one channel, while it
has sockets in that room; one task per room reads that channel and hands each message to every
socket of the room in turn. The layer still carries messages between processes (Redis in
production), so a room spread over several Daphnes is served together, and so do messages sent to
the group from anywhere (`outbox`, the consumers, tests).

A message is one text for every socket, or one per audience (`games.protocol.audiences`): each socket
takes its own, and sockets that take the same text get it one after another, so Daphne frames
it once (`daphne_frames`).

A room's message sent from this process (a move's, through `outbox`) reaches the room's sockets
here at once, from the outbox's task (`broadcast.local.hearing_here`, where each room's
subscription here is registered), instead of going round the layer and back:
the layer still carries the message to the others (sent first: a crowd's fan-out here takes tens
of milliseconds that the other processes need not wait for), and the copy that comes back here is
skipped by its `origin`. That took a queue, a task wake-up and a Redis round trip off the path of this
process's sockets (docs/performance.md). (With one process the layer's copy could be skipped
too, but only the in-memory layer's private `groups` tells; that bought no tenth of a move's CPU
and was dropped: docs/operations.md, "Library internals".)

Each room's subscription also keeps the room's snapshot for its sockets here (`snapshots`): every
message it hears may change what a snapshot shows and drops the kept one, except those sent with
`"keeps_snapshot": True` (pointer positions).

When the layer fails under a room (the core Redis layer raises on receive), the room's sockets
close with 1013 and leave the roster; the pages
reconnect and get a fresh snapshot.
"""

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any, Protocol

from channels.layers import get_channel_layer

from .. import metrics
from ..broadcast import local
from ..broadcast.outbox import LAYER_ERRORS
from ..log_limit import warn
from ..protocol import audiences
from . import shutdown
from .reorder import Order, Reorder
from .snapshots import SnapshotCache

log = logging.getLogger(__name__)


class Socket(Protocol):
    audience: tuple[str, ...]
    """The audience keys the socket looks for in a message, most particular first."""

    def deliver_now(self, html: str) -> bool:
        """Send `html` at once if that needs no waiting; False, and nothing sent, if not."""
        ...

    async def deliver(self, html: str) -> None: ...

    async def control(self, control: audiences.Control) -> None:
        """Do what `control` says (close, or take a snapshot): nothing is sent as it is."""
        ...


class Subscription:
    """One room's group membership in this process, and the sockets it feeds."""

    def __init__(self, group: str, rooms: dict[str, "Subscription"]) -> None:
        self.group = group
        self.rooms = rooms
        self.sockets: set[Socket] = set()
        self.snapshots = SnapshotCache()
        self.order = Reorder()
        self.expiry: asyncio.Task[None] | None = None
        self.layer: Any = get_channel_layer()
        self.channel = ""
        self.joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._run(), name=f"relay {group}")

    async def _run(self) -> None:
        try:
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(self.group, self.channel)
        except Exception as error:
            if isinstance(error, LAYER_ERRORS):
                metrics.LAYER_ERRORS.inc()
            self._retire()
            self.joined.set_exception(error)
            return
        self.joined.set_result(None)
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except LAYER_ERRORS as error:
                metrics.LAYER_ERRORS.inc()
                warn(
                    log,
                    "layer_unavailable",
                    "room %s: channel layer unavailable: %s",
                    self.group,
                    error,
                )
                self._retire()
                await shutdown.close_sockets(list(self.sockets), shutdown.TRY_AGAIN_LATER)
                return
            if message.get("origin") != local.ORIGIN:  # else heard already (`local.hear_here`)
                await self.hear(message)

    async def hear(self, message: dict[str, Any]) -> None:
        """A message of the room, to each socket of the room here, in version order: an early
        move waits a little for the ones before it (`reorder`)."""
        now = asyncio.get_running_loop().time()
        for each in self.order.arrive(_order_of(message), message, now):
            await self._hear(each)
        self._expire_later()

    def _expire_later(self) -> None:
        """A wake-up for when the oldest early move has waited long enough."""
        due = self.order.due()
        if due is not None and self.expiry is None:
            self.expiry = asyncio.create_task(self._expire(due))

    async def _expire(self, due: float) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, due - loop.time()))
        self.expiry = None
        for each in self.order.expire(loop.time()):
            await self._hear(each)
        self._expire_later()

    async def _hear(self, message: dict[str, Any]) -> None:
        if not message.get("keeps_snapshot"):
            self.snapshots.changed()
        texts = message.get("texts")
        if texts is None:
            metrics.MESSAGE_BYTES.observe(metrics.size_of(message["html"]))
            pages = [socket for socket in self.sockets if audiences.ALL in socket.audience]
            await self._forward(message["html"], pages)
        elif "controls" in message:  # rare: a close, or bots' resync
            await self._control_each(texts, message["controls"])
        else:
            await self._forward_each(texts)

    async def _forward_each(
        self, texts: dict[str, str], sockets: Iterable[Socket] | None = None
    ) -> None:
        """One message, a text per audience: each socket (of the room's, or of `sockets`) gets
        the one its keys pick first."""
        takers: dict[str, list[Socket]] = {}
        for socket in self.sockets if sockets is None else sockets:
            text = audiences.pick(texts, socket.audience)
            if text is not None:
                takers.setdefault(text, []).append(socket)
        for text, sockets in takers.items():
            metrics.MESSAGE_BYTES.observe(metrics.size_of(text))
            await self._forward(text, sockets)

    async def _control_each(self, texts: dict[str, str], controls: dict[str, str]) -> None:
        """A message with controls for some audiences (`audiences.Control`): the sockets whose
        keys find a control first are told it, the others take their text as usual."""
        told: list[tuple[Socket, audiences.Control]] = []
        others: list[Socket] = []
        for socket in self.sockets:
            control = audiences.pick_control(texts, controls, socket.audience)
            if control is None:
                others.append(socket)
            else:
                told.append((socket, control))
        await self._forward_each(texts, others)
        for socket, control in told:
            try:
                await socket.control(control)
            except Exception:  # one broken socket must not starve the others
                log.exception("room %s: could not tell a socket %s", self.group, control)

    async def _forward(self, html: str, sockets: list[Socket]) -> None:
        for socket in sockets:
            try:
                if not socket.deliver_now(html):
                    await socket.deliver(html)
            except Exception:  # one broken socket must not starve the others
                log.exception("room %s: could not forward a message to a socket", self.group)

    def _retire(self) -> None:
        """No longer the room's subscription here: the next socket starts a new one."""
        if self.rooms.get(self.group) is self:
            del self.rooms[self.group]
            metrics.ROOMS.dec()

    async def close(self) -> None:
        """Leave the group; a join still in flight finishes first, so that it is undone too."""
        self._retire()
        with contextlib.suppress(Exception):
            await asyncio.shield(self.joined)
        self.task.cancel()
        if self.expiry is not None:
            self.expiry.cancel()
        if self.joined.done() and self.joined.exception() is None:
            try:
                await self.layer.group_discard(self.group, self.channel)
            except LAYER_ERRORS as error:
                metrics.LAYER_ERRORS.inc()
                warn(
                    log,
                    "layer_unavailable",
                    "room %s: could not leave the group: %s",
                    self.group,
                    error,
                )


def _order_of(message: dict[str, Any]) -> Order | None:
    """A move's (game number, version), as `outbox.send` put it (a list, through Redis)."""
    order = message.get("order")
    return None if order is None else (int(order[0]), int(order[1]))


def _rooms() -> dict[str, Subscription]:
    return local.rooms_here()


async def join(group: str, socket: Socket) -> None:
    """Feed `socket` the messages of `group`. Returns once they reach this process, so that a
    snapshot sent afterwards misses nothing; raises the layer's error if the group cannot be
    joined (the caller refuses the socket)."""
    rooms = _rooms()
    subscription = rooms.get(group)
    if subscription is None:
        subscription = rooms[group] = Subscription(group, rooms)
        metrics.ROOMS.inc()
    subscription.sockets.add(socket)
    try:
        await asyncio.shield(subscription.joined)
    except BaseException:  # refused, or the socket itself was cancelled meanwhile
        subscription.sockets.discard(socket)
        if not subscription.sockets:
            asyncio.ensure_future(subscription.close())
        raise


async def leave(group: str, socket: Socket) -> None:
    """Stop feeding `socket`; the last socket of a room here takes the process out of its group."""
    subscription = _rooms().get(group)
    if subscription is None or socket not in subscription.sockets:
        return
    subscription.sockets.discard(socket)
    if not subscription.sockets:
        await subscription.close()


def snapshots_of(group: str) -> SnapshotCache | None:
    """The room's shared snapshot here, while this process has sockets in the room: only then
    does it hear what would make a kept snapshot stale."""
    subscription = _rooms().get(group)
    if subscription is None or not subscription.joined.done():
        return None
    return subscription.snapshots
