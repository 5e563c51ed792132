"""Notice when Redis goes away under the pub/sub channel layer, and tell every open socket.

channels-redis' pub/sub layer reconnects by itself and never fails a receive: whatever is
published while Redis is away is lost without a sign, and pages would show "Live" over a stale
board until the next move revealed the gap. The core layer fails loudly instead (a receive raises,
the socket closes with 1013), and the pages and tests rely on that: closed, refused while Redis
is down, back with a fresh snapshot when it returns.

So while a process has room sockets open, it pings Redis every second; when a ping fails, every
room socket of the process closes with 1013 ("try again later") at once. New sockets are refused
meanwhile (subscribing to their room fails), and the pages' own reconnects bring them back.
"""

import asyncio
import logging
import weakref

import redis.asyncio as redis
from django.conf import settings

from ..broadcast.outbox import LAYER_ERRORS
from . import shutdown
from .sockets import open_sockets

log = logging.getLogger(__name__)

INTERVAL = 1.0
"""Seconds between pings; a lost Redis shows on every page within about this long."""
TIMEOUT = 5.0
"""A ping unanswered for this long counts as a lost Redis. A stopped Redis refuses the connection
at once; the timeout is for a hung one, and is long because an overloaded process answers its
own pings late too, and closing every socket then would only add a reconnect storm."""

_watchers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]]" = (
    weakref.WeakKeyDictionary()
)


def needed() -> bool:
    return settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("RedisPubSubChannelLayer")


def watch() -> None:
    """Called as a room socket opens: one watcher per event loop, for as long as it has sockets."""
    if not needed():
        return
    loop = asyncio.get_running_loop()
    task = _watchers.get(loop)
    if task is None or task.done():
        _watchers[loop] = loop.create_task(_watch(), name="redis-watch")


async def _watch() -> None:
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
    )
    try:
        while open_sockets():
            await asyncio.sleep(INTERVAL)
            try:
                await client.ping()
            except LAYER_ERRORS as error:
                sockets = open_sockets()
                log.warning("Redis unreachable (%s): closing %d sockets", error, len(sockets))
                await shutdown.close_sockets(sockets, shutdown.TRY_AGAIN_LATER)
    finally:
        await client.aclose()
