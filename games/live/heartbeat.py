"""This process's heartbeat, so presence heals by itself after a crash.

Each socket is counted in the database under this process's id (`presence.PROCESS`, new at
every start; `models.Presence`). While the process has room sockets it beats every
`PRESENCE_HEARTBEAT_SECONDS` (`ServerProcess.last_seen`), and at each beat it takes out of the
counts the sockets of every process that has not beaten for `PRESENCE_EXPIRY_SECONDS`: one killed without a goodbye
(`kill -9`, out of memory) would otherwise keep its players "online" and its rooms in "Live now"
for ever. The rooms that changed get a fresh roster. The same beat hands on the host seat of a
room whose host has been away too long (`games.rooms.host`). A clean stop takes its own part out at once
(`shutdown`). Figures: docs/operations.md, "Presence after a crash".

A process that finds itself taken for dead (stalled longer than the expiry) closes its sockets
with 1012: their counts are gone, and the pages reconnect and are counted again.
"""

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable

from channels.db import database_sync_to_async
from django.conf import settings

from ..rooms import host, presence
from ..store.models import Room
from . import rosters
from .presence import PROCESS, forget_presence
from .sockets import open_sockets

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
EXPIRY_SECONDS = 20.0
"""The defaults of settings.PRESENCE_HEARTBEAT_SECONDS and PRESENCE_EXPIRY_SECONDS: a crashed
process's sockets leave the counts within expiry + heartbeat (25 s)."""
SERVICE_RESTART = 1012
"""The close code for sockets of a process taken for dead: the pages reconnect at once."""


class _Beat:
    """The heartbeat of one event loop: registered in the database, and the task that beats."""

    def __init__(self, wake: "Wake") -> None:
        self.wake = wake
        self.registered = False
        self.task: asyncio.Task[None] | None = None
        self.idle = asyncio.Event()
        """Set when the last socket has gone: the task ends without waiting out its sleep."""


_counted = False
"""Whether this process has ever counted a socket (and has a row to drop when it stops)."""

_beats: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Beat]" = weakref.WeakKeyDictionary()


def interval() -> float:
    return float(getattr(settings, "PRESENCE_HEARTBEAT_SECONDS", HEARTBEAT_SECONDS))


def expiry() -> float:
    return float(getattr(settings, "PRESENCE_EXPIRY_SECONDS", EXPIRY_SECONDS))


Wake = Callable[[Room], None]
"""What to call for a room that lost a player in a sweep (`autoplay.schedule`: its clock may
have a grace period to time); passed in, as the live drivers sit above this module."""


async def register(wake: Wake) -> None:
    """Before a socket is counted: the process has its row (so no live process takes the count
    for an orphan), and the heartbeat runs while the process has sockets."""
    beat = _beats.setdefault(asyncio.get_running_loop(), _Beat(wake))
    beat.idle.clear()
    if not beat.registered:
        global _counted
        _counted = True
        await database_sync_to_async(presence.process_seen)(PROCESS)
        beat.registered = True
    if beat.task is None:
        beat.task = asyncio.get_running_loop().create_task(_run(beat), name="presence-heartbeat")


def counted_here() -> bool:
    return _counted


def socket_left() -> None:
    """A socket closed: with none left, the heartbeat stops now rather than at its next beat."""
    beat = _beats.get(asyncio.get_running_loop())
    if beat is not None and not open_sockets():
        beat.idle.set()


async def _run(beat: _Beat) -> None:
    try:
        while open_sockets():
            try:
                await _beat_once(beat.wake)
            except Exception:  # a database hiccup: the next beat tries again
                log.exception("presence heartbeat failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(beat.idle.wait(), interval())
    finally:
        # Not registered any more: once its row expires another process may delete it, and the
        # next socket here must make it again before it is counted.
        beat.task = None
        beat.registered = False


async def _beat_once(wake: Wake) -> None:
    if not await database_sync_to_async(presence.process_seen)(PROCESS):
        sockets = open_sockets()
        log.warning("presence: this process was taken for dead; closing %d sockets", len(sockets))
        await asyncio.wait(
            [asyncio.ensure_future(s.close(code=SERVICE_RESTART)) for s in sockets]
            + [asyncio.ensure_future(forget_presence(sockets))],
            timeout=2,
        )
        return
    await sweep(wake)


async def sweep(wake: Wake) -> None:
    """Take the sockets of processes taken for dead out of the counts; the rooms that changed
    get a fresh roster, and those that lost a player a look from their clock: a racer marked
    away has a grace period to time, which else would wait for the room's next move."""
    rooms = await database_sync_to_async(presence.forget_dead_processes)(expiry())
    if rooms:
        log.warning("presence: took a dead process's sockets out of %d rooms", len(rooms))
    for room_id, player in rooms.items():
        rosters.changed(room_id, player=player)
    seated = [room_id for room_id, player in rooms.items() if player]
    for room in await database_sync_to_async(_rooms)(seated):
        wake(room)
    # A host away too long hands the seat on (`games.rooms.host`): judged in the database, so
    # whichever process beats first does it, whatever process the host's socket was on.
    await database_sync_to_async(host.pass_from_away_hosts)(host.away_seconds())


def _rooms(ids: list[int]) -> list[Room]:
    return list(Room.objects.filter(pk__in=ids)) if ids else []


async def stopped() -> None:
    """A clean stop: this process's row and remaining counts go at once."""
    await database_sync_to_async(presence.process_stopped)(PROCESS)
