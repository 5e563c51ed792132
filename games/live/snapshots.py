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

Where screens differ (a racer's board is their own; a bot reads JSON), one snapshot is kept per
`View`, each shared by every socket of that view.
"""

import asyncio
import time
from typing import NamedTuple

from channels.db import database_sync_to_async

from .. import metrics
from ..broadcast import announce
from ..store import rows
from ..store.models import Room

MAX_AGE = 2.0
"""Seconds a snapshot is shared at most, even when the room hears of no change."""


class View(NamedTuple):
    """What a socket's snapshot shows: the game as one seat sees it (None: as everyone, or a
    spectator, does), as a page's HTML or a bot's JSON."""

    seat: int | None = None
    json: bool = False


EVERYONE = View()


class SnapshotCache:
    """One room's latest snapshots in this process, one per view."""

    def __init__(self) -> None:
        self.changes = 0
        """Messages the room heard here that may change its snapshot."""
        self.kept: dict[View, tuple[int, float, str]] = {}
        """(changes, when, text) of the last snapshot rendered, per view."""
        self.rendering: dict[View, tuple[int, asyncio.Future[str]]] = {}

    def changed(self) -> None:
        self.changes += 1
        self.kept.clear()

    async def html(self, room_id: int, view: View = EVERYONE) -> str:
        mark, now = self.changes, time.monotonic()
        kept = self.kept.get(view)
        if kept is not None and kept[0] == mark and now - kept[1] < MAX_AGE:
            return kept[2]
        rendering = self.rendering.get(view)
        if rendering is None or rendering[0] != mark:
            # A task of its own: the socket that asked first may go away while others wait.
            task = asyncio.ensure_future(render(room_id, view))
            task.add_done_callback(_retrieved)
            rendering = self.rendering[view] = (mark, task)
            task.add_done_callback(lambda done: self._rendered(view, mark, now, done))
        return await asyncio.shield(rendering[1])

    def _rendered(self, view: View, mark: int, started: float, done: "asyncio.Future[str]") -> None:
        rendering = self.rendering.get(view)
        if rendering is not None and rendering[1] is done:
            del self.rendering[view]
        if not done.cancelled() and done.exception() is None and self.changes == mark:
            self.kept[view] = (mark, started, done.result())


def _retrieved(done: "asyncio.Future[str]") -> None:
    """The error is the waiting sockets' to report; none may be left to take it."""
    if not done.cancelled():
        done.exception()


async def render(room_id: int, view: View = EVERYONE) -> str:
    return await database_sync_to_async(_render)(room_id, view)


def _render(room_id: int, view: View) -> str:
    """From the room as it is now: a socket's own copy of the room may be minutes old."""
    room = rows.get(Room, id=room_id)
    html = announce.snapshot_for(room, view.seat, json=view.json)
    metrics.SNAPSHOT_BYTES.observe(metrics.size_of(html))
    return html
