"""Close every room socket with 1012 ("service restart") when Daphne stops.

Daphne cancels its applications on shutdown and drops the connections without a close frame.
Browsers would reconnect after that too (1006), but 1012 says what happened and works the same
behind any proxy. Only under Daphne's Twisted reactor; test clients have none. Daphne would
refuse to send 1012 at all, as it refuses 1008 and 1013: `games.patches.daphne_close_codes` lets
them through.
"""

import asyncio
import contextvars
import sys
from typing import Any

from . import heartbeat
from .presence import forget_presence
from .sockets import open_sockets

SERVICE_RESTART = 1012
TRY_AGAIN_LATER = 1013


def install() -> None:
    """Register the goodbye before Daphne's own shutdown step cancels the consumers (Daphne
    sends 1012 at all thanks to `games.patches.daphne_close_codes`)."""
    if "twisted.internet.reactor" not in sys.modules:  # importing it would install a reactor
        return
    from twisted.internet import reactor

    # IReactorCore is a zope Interface, whose methods are declared without `self`: mypy, without
    # zope's plugin, reads them one argument short.
    core: Any = reactor
    core.addSystemEventTrigger("before", "shutdown", _close_all)


def _close_all() -> Any:
    from twisted.internet.defer import Deferred

    sockets = open_sockets()
    if not sockets and not heartbeat.counted_here():
        return None
    return Deferred.fromFuture(asyncio.ensure_future(_goodbye(sockets)))


async def _goodbye(sockets: list[Any]) -> None:
    """Close the sockets, then drop this process's row and any count it still holds, so nothing
    of it waits for the heartbeat's expiry (`heartbeat`)."""
    if sockets:
        await close_sockets(sockets, SERVICE_RESTART)
    loop = asyncio.get_running_loop()
    stopped = loop.create_task(heartbeat.stopped(), context=contextvars.Context())
    await asyncio.wait([stopped], timeout=2)


async def close_sockets(sockets: list[Any], code: int) -> None:
    """Close these sockets with `code`, and take them all out of the presence counts in one go:
    at shutdown Daphne cancels the consumers right after this, before their disconnect handlers
    would run (the players would stay "online" for ever), and when Redis is lost their handlers
    cannot reach the layer. A moment for both before the caller goes on."""
    closing = [asyncio.ensure_future(s.close(code=code)) for s in sockets]
    # In a fresh context: the reactor may run the shutdown trigger in one that asgiref has marked
    # as waiting on its database thread, and it would then refuse the call ("would deadlock").
    loop = asyncio.get_running_loop()
    closing.append(loop.create_task(forget_presence(sockets), context=contextvars.Context()))
    await asyncio.wait(closing, timeout=2)
