"""The flood limit of one websocket: a token bucket lets a person's bursts through (double
clicks, quick flagging) and stops scripts flooding the room."""

from dataclasses import dataclass

MESSAGES_BURST = 40
MESSAGES_PER_SECOND = 20.0
"""Pointer updates (10/s) plus fast clicking stay well inside this; scripts flooding do not."""


@dataclass
class TokenBucket:
    capacity: float
    rate: float
    tokens: float
    updated: float

    @classmethod
    def full(cls, capacity: float, rate: float, now: float) -> "TokenBucket":
        return cls(capacity, rate, capacity, now)

    def allow(self, now: float) -> bool:
        """Take one token if there is one; tokens come back at `rate` per second."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
