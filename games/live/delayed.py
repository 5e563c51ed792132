"""A socket's texts sent a fixed time after they were produced, in order: a race's spectators
watch a few seconds behind, so that a friend watching cannot coach a racer.

The delay is applied to everything the socket would have been sent (its snapshot too), so the
page sees a consistent game, only later; nothing is dropped or reordered. The queue is bounded:
a room flooding its spectators faster than `LIMIT` texts per delay is far outside any real
race (8 racers at the flood limit send under 500 in 3 s), and the socket is closed instead of
buffering without end; the page reconnects.
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

    def put(self, text: str) -> None:
        if len(self.waiting) >= LIMIT:
            raise Full(f"{len(self.waiting)} texts wait for a delayed socket")
        loop = asyncio.get_running_loop()
        self.waiting.append((loop.time() + self.seconds, text))
        if self.task is None:
            self.task = loop.create_task(self._run(), name="delayed socket")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.waiting:
                due, text = self.waiting[0]
                if (wait := due - loop.time()) > 0:
                    await asyncio.sleep(wait)  # the delay itself, not a wait for a condition
                self.waiting.popleft()
                await self.write(text)
        finally:
            self.task = None

    def stop(self) -> None:
        """Drop what waits; the socket is going away."""
        self.waiting.clear()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        self.task = None
