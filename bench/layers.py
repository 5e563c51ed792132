"""A what-if for the in-memory channel layer (opt-in through `bench.settings`).

Channels' `InMemoryChannelLayer.receive` calls `_clean_expired`, which walks every channel and
every group member of the process, on every receive. A move in a room of N sockets wakes N
receives, so one broadcast costs O(N x all sockets): 100 spectators mean some 20,000 steps per move.
Cleaning at most every few seconds keeps the expiry (messages still expire, a little later).
"""

import os
import time

from channels.layers import InMemoryChannelLayer


class ThrottledInMemoryChannelLayer(InMemoryChannelLayer):
    every = float(os.environ.get("BENCH_INMEMORY_CLEAN_EVERY", "1"))
    _cleaned = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned >= self.every:
            self._cleaned = now
            super()._clean_expired()
