"""The embedded channel layer: Channels' in-memory layer, with a broadcast that costs in
proportion to the room it goes to.

`InMemoryChannelLayer` walks every channel and group of the process for expired messages on every
receive and every group send, and sends to a group through one task per member. A move in a room
of N sockets wakes N receives, so a broadcast cost O(N x every socket of the process): 100
spectators meant some 20,000 steps per move (docs/performance.md). Here the walk runs at most
once a second (messages still expire, a little later) and a group send puts the message straight
into each member's queue, which is all the base class's `send` does.
"""

import contextlib
import time

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

CLEAN_EVERY = 1.0
"""Seconds between walks for expired messages and group memberships."""


class LocalChannelLayer(InMemoryChannelLayer):
    _cleaned_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at >= CLEAN_EVERY:
            self._cleaned_at = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            with contextlib.suppress(ChannelFull):  # as the base class: a full channel misses it
                await self.send(channel, message)
