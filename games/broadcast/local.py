"""Local delivery: a room's message sent from this process reaches this process's own sockets
of the room at once, from the outbox's task, instead of going round the channel layer and back.

The live layer's relay (`games.live.relay`) keeps one subscription per room and event loop, and
registers it here while it has sockets (`rooms_here`); `outbox` imports this module downward
(`hearing_here`), so nothing is injected at import time and the outbox never reaches up into the
transport. The layer still carries the message to the other processes (sent first), and the
copy that comes back here is skipped by its `origin` (docs/performance.md).
"""

import asyncio
import secrets
import weakref
from collections.abc import Awaitable
from typing import Any, Protocol

ORIGIN = secrets.token_hex(8)
"""This process, on the messages whose sockets here it feeds itself (`hear_here`)."""


class Hearer(Protocol):
    """A room's subscription in this process (`live.relay.Subscription`), as delivery sees it."""

    joined: "asyncio.Future[None]"
    sockets: set[Any]

    def hear(self, message: dict[str, Any]) -> Awaitable[None]: ...


_rooms_by_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]]" = (
    weakref.WeakKeyDictionary()
)


def rooms_here() -> dict[str, Any]:
    """Group name -> this event loop's subscription of that room (`Hearer`), kept by the relay."""
    return _rooms_by_loop.setdefault(asyncio.get_running_loop(), {})


def _rooms() -> dict[str, Any]:
    return rooms_here()


def hearing_here(group: str, message: dict[str, Any]) -> Awaitable[None] | None:
    """`message` (sent to `group` from this process) for the room's sockets here: marked now
    with this process's `ORIGIN`, so that the copy the layer brings back is not heard twice, and
    handed to them when the returned awaitable runs (None: no socket of the room here). The
    outbox sends the layer's copy in between, so the other processes need not wait for this
    one's sockets."""
    subscription = rooms_here().get(group)
    joined = subscription is not None and subscription.joined.done()
    if subscription is None or not joined or subscription.joined.exception() is not None:
        return None
    message["origin"] = ORIGIN
    return subscription.hear(message)


async def hear_here(group: str, message: dict[str, Any]) -> None:
    """`message` to the room's sockets here at once (`hearing_here`)."""
    hearing = hearing_here(group, message)
    if hearing is not None:
        await hearing


def subscribed(loop: asyncio.AbstractEventLoop, group: str) -> bool:
    """Whether `loop` has a subscription of the room, asked from any thread (a database thread
    working for that loop): the relay registers one, from the loop, before the room's first
    socket here reads its snapshot, and drops it after the last one has gone."""
    rooms = _rooms_by_loop.get(loop)
    return rooms is not None and group in rooms


def sockets_in(group: str) -> int:
    """How many sockets of the room this process feeds (the computers' driver, tests)."""
    subscription = rooms_here().get(group)
    return 0 if subscription is None else len(subscription.sockets)
