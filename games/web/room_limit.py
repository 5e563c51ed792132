"""How many rooms one client address may create: counted per address and clock minute in the
shared cache, so the cap holds across every server process when Redis is configured. Only rooms
that are made count: a form sent back with errors does not."""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str:
    """The peer address; Daphne's --proxy-headers already puts the proxy's X-Forwarded-For here."""
    return request.META.get("REMOTE_ADDR") or "unknown"


class Reservation:
    """One room counted toward the limit; given back unless the room is made (`keep`)."""

    def __init__(self) -> None:
        self.kept = False

    def keep(self) -> None:
        self.kept = True


@contextmanager
def room_reservation(request: HttpRequest, now: float) -> Iterator[Reservation | None]:
    """At most `settings.ROOMS_PER_MINUTE` new rooms per client address and clock minute; None
    when the address is over it. Only rooms that are made count: a request that does not `keep`
    its reservation (a form with errors, an exception) gives it back when the block ends.

    Counting first and giving back on failure (rather than reading the count, validating, then
    adding) keeps the cap exact across processes: the cache's incr is atomic, so two requests at
    the boundary can never both get the last room. The price is the other way round: while a
    request that will fail holds the last place, a concurrent one is refused.
    """
    key = f"rooms-created:{client_address(request)}:{int(now // 60)}"
    counted = _count(key, 1)
    if counted is not None and counted > settings.ROOMS_PER_MINUTE:
        _count(key, -1)  # a refusal is not a room: waiting the minute out is enough
        yield None
        return
    reservation = Reservation()
    try:
        yield reservation
    finally:
        if counted is not None and not reservation.kept:
            _count(key, -1)


def _count(key: str, delta: int) -> int | None:
    """The counter after adding `delta`, or None when the cache is unavailable."""
    try:
        if delta > 0:
            cache.add(key, 0, timeout=120)
        return cache.incr(key, delta)
    except ValueError:  # expired between the incr and its decr: nothing left to give back
        return None
    except (OSError, RedisConnectionError, RedisTimeoutError) as error:
        # Fail open: with Redis down, rooms can still be created, only without the cap.
        log.warning("room creation limit not checked, cache unavailable: %s", error)
        return None
