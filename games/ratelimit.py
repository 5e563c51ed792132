"""Limits that keep one client from drowning a room or the server.

A token bucket per websocket lets a person's bursts through (double clicks, quick flagging) and
stops floods; room creation is counted per client address and minute in the shared cache, so the
cap holds across every server process when Redis is configured.
"""

import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

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


def client_address(request: HttpRequest) -> str:
    """The peer address; Daphne's --proxy-headers already puts the proxy's X-Forwarded-For here."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def allow_room_creation(request: HttpRequest, now: float) -> bool:
    """At most `settings.ROOMS_PER_MINUTE` new rooms per client address and clock minute."""
    key = f"rooms-created:{client_address(request)}:{int(now // 60)}"
    try:
        cache.add(key, 0, timeout=120)
        return cache.incr(key) <= settings.ROOMS_PER_MINUTE
    except (OSError, RedisConnectionError, RedisTimeoutError) as error:
        # Fail open: with Redis down, rooms can still be created, only without the cap.
        log.warning("room creation limit not checked, cache unavailable: %s", error)
        return True
