"""A socket's texts sent a fixed time after they were produced, in order: a race's spectators
watch a few seconds behind, so that a friend watching cannot coach a racer.

The delay is applied to everything the socket would have been sent (its snapshot too), so the
page sees a consistent game, only later; nothing is dropped or reordered. The queue is bounded:
a room flooding its spectators faster than `LIMIT` texts per delay is far outside any real
race (8 racers at the flood limit send under 500 in 3 s), and the socket is closed instead of
buffering without end; the page reconnects.

A racer who stops racing while others still race watches like a spectator (`audiences.LATE`)
until the race is over; then their socket catches up (`hurry`): what waits goes out at once, in
order, and nothing more is held back.
"""

import asyncio
import collections
from collections.abc import Awaitable, Callable

LIMIT = 2_000
"""Texts waiting per socket at most."""


class Full(Exception):
    """More than `LIMIT` texts wait: the caller closes the socket."""


class DelayedSender:
    def __init__(self, seconds: float, write: Callable[[str], Awaitable[None]]) -> None:
        self.seconds = seconds
        self.write = write
        self.waiting: collections.deque[tuple[float, str]] = collections.deque()
        self.task: asyncio.Task[None] | None = None
        self.waking: asyncio.Future[None] | None = None
        """What the sender waits on until the next text's time; `hurry` ends the wait early."""

    @property
    def idle(self) -> bool:
        """Nothing waits and nothing is being written."""
        return not self.waiting and self.task is None

    def put(self, text: str) -> None:
        if len(self.waiting) >= LIMIT:
            raise Full(f"{len(self.waiting)} texts wait for a delayed socket")
        loop = asyncio.get_running_loop()
        self.waiting.append((loop.time() + self.seconds, text))
        if self.task is None:
            self.task = loop.create_task(self._run(), name="delayed socket")

    def hurry(self) -> None:
        """What waits goes out now, in order, and what comes later without delay."""
        self.seconds = 0
        self.waiting = collections.deque((0.0, text) for _, text in self.waiting)
        if self.waking is not None:
            _wake(self.waking)

    def slow(self, seconds: float) -> None:
        """What comes from now on waits `seconds` (what waits already keeps its time)."""
        self.seconds = seconds

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.waiting:
                due, text = self.waiting[0]
                if due > loop.time():
                    await self._pause(due)
                    continue
                self.waiting.popleft()
                await self.write(text)
        finally:
            self.task = None

    async def _pause(self, due: float) -> None:
        """Until `due` (the loop's time) or a `hurry`: `asyncio.sleep`, which nothing can end
        early, made the same way."""
        loop = asyncio.get_running_loop()
        self.waking = loop.create_future()
        timer = loop.call_at(due, _wake, self.waking)
        try:
            await self.waking
        finally:
            timer.cancel()
            self.waking = None

    def stop(self) -> None:
        """Drop what waits; the socket is going away."""
        self.waiting.clear()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        self.task = None


def _wake(waking: "asyncio.Future[None]") -> None:
    if not waking.done():
        waking.set_result(None)
