"""How many rooms one client address may create: counted per address and clock minute in the
shared cache, so the cap holds across every server process when Redis is configured."""

import logging

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)


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
