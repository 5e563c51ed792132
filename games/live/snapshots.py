"""A room's snapshot, rendered once per change of the room in each process and shared.

A snapshot of a 50x50 board is about 440 KB of HTML. Rendered for every request, a few sockets
asking for one 18 times a second (inside the flood limit) kept Daphne's CPU busy and filled its
memory with copies; a thousand pages reconnecting after a restart each had one rendered.

What a snapshot shows changes only with something the room is told: a move, a new game, the
roster, a hint, the Solver bot. Every such message reaches the room's subscription in this
process (`relay`), which then drops the kept snapshot; pointer positions, which a snapshot does
not show, do not. So a kept snapshot is the one a fresh read would give, up to messages still on
their way, which the socket hears after it as it would after a fresh one (`consumer.held`).
Sockets that ask while one is being rendered share that one. `MAX_AGE` bounds how long a
snapshot is kept without news, should something change the database without telling the room.
"""

import asyncio
import time

from channels.db import database_sync_to_async

from .. import announce, metrics
from ..models import Room

MAX_AGE = 2.0
"""Seconds a snapshot is shared at most, even when the room hears of no change."""


class SnapshotCache:
    """One room's latest snapshot in this process."""

    def __init__(self) -> None:
        self.changes = 0
        """Messages the room heard here that may change its snapshot."""
        self.kept: tuple[int, float, str] | None = None
        """(changes, when, html) of the last snapshot rendered."""
        self.rendering: tuple[int, asyncio.Future[str]] | None = None

    def changed(self) -> None:
        self.changes += 1
        self.kept = None

    async def html(self, room_id: int) -> str:
        mark, now = self.changes, time.monotonic()
        if self.kept is not None and self.kept[0] == mark and now - self.kept[1] < MAX_AGE:
            return self.kept[2]
        if self.rendering is None or self.rendering[0] != mark:
            # A task of its own: the socket that asked first may go away while others wait.
            task = asyncio.ensure_future(render(room_id))
            task.add_done_callback(_retrieved)
            self.rendering = (mark, task)
            task.add_done_callback(lambda done: self._rendered(mark, now, done))
        return await asyncio.shield(self.rendering[1])

    def _rendered(self, mark: int, started: float, done: "asyncio.Future[str]") -> None:
        if self.rendering is not None and self.rendering[1] is done:
            self.rendering = None
        if not done.cancelled() and done.exception() is None and self.changes == mark:
            self.kept = (mark, started, done.result())


def _retrieved(done: "asyncio.Future[str]") -> None:
    """The error is the waiting sockets' to report; none may be left to take it."""
    if not done.cancelled():
        done.exception()


async def render(room_id: int) -> str:
    return await database_sync_to_async(_render)(room_id)


def _render(room_id: int) -> str:
    """From the room as it is now: a socket's own copy of the room may be minutes old."""
    html = announce.snapshot_html(Room.objects.get(pk=room_id))
    metrics.SNAPSHOT_BYTES.observe(metrics.size_of(html))
    return html
