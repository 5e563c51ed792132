"""How many rooms one client address may create, and how many seats it may take: counted per
address and clock minute in the shared cache, so the caps hold across every server process when
Redis is configured. Only rooms made and seats taken count: a form sent back with errors, or a
full room, does not."""

import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..live.flood import address_key
from ..log_limit import warn

log = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str:
    """The peer address as limits count it (`address_key`: an IPv6 /64 is one); Daphne's
    --proxy-headers already puts the proxy's X-Forwarded-For here."""
    return address_key(request.META.get("REMOTE_ADDR") or "unknown")


class Reservation:
    """One room counted toward the limit; given back unless the room is made (`keep`)."""

    def __init__(self) -> None:
        self.kept = False

    def keep(self) -> None:
        self.kept = True


@dataclass(frozen=True)
class Limit:
    """What is counted (the cache key's prefix) and the setting that caps it per minute."""

    counted: str
    setting: str


ROOMS = Limit("rooms-created", "ROOMS_PER_MINUTE")
JOINS = Limit("joins", "JOINS_PER_MINUTE")
HINTS = Limit("hints", "HINTS_PER_MINUTE")


def room_reservation(
    request: HttpRequest, now: float
) -> AbstractContextManager[Reservation | None]:
    """One new room (`reservation` with `ROOMS_PER_MINUTE`)."""
    return reservation(request, now, ROOMS)


def join_reservation(
    request: HttpRequest, now: float
) -> AbstractContextManager[Reservation | None]:
    """One seat taken in a room, by the page or the API (`reservation` with `JOINS_PER_MINUTE`)."""
    return reservation(request, now, JOINS)


def hint_reservation(
    request: HttpRequest, now: float
) -> AbstractContextManager[Reservation | None]:
    """One hint asked through the API (`reservation` with `HINTS_PER_MINUTE`)."""
    return reservation(request, now, HINTS)


def room_hint_allowed(room_id: int) -> bool:
    """At most one API hint per room every `settings.HINT_ROOM_SECONDS`, across processes: a
    hint shows for everyone, so a second one that soon mostly repeats it. True when the cache is
    unavailable (fail open, as the other limits)."""
    seconds = settings.HINT_ROOM_SECONDS
    if seconds <= 0:
        return True
    try:
        return bool(cache.add(f"hint-room:{room_id}", 1, timeout=max(1, round(seconds))))
    except (OSError, RedisConnectionError, RedisTimeoutError) as error:
        warn(log, "cache_unavailable", "hint limit not checked, cache unavailable: %s", error)
        return True


def release_room_hint(room_id: int) -> None:
    """Give the room its interval back after a refused hint (the first click, a game over):
    nobody was shown anything, so the room may ask again at once."""
    try:
        cache.delete(f"hint-room:{room_id}")
    except (OSError, RedisConnectionError, RedisTimeoutError) as error:
        log.warning("hint limit not released, cache unavailable: %s", error)


@contextmanager
def reservation(request: HttpRequest, now: float, limit: Limit) -> Iterator[Reservation | None]:
    """At most `settings.<limit.setting>` per client address and clock minute; None when the
    address is over it. Only what is made counts: a request that does not `keep` its
    reservation (a form with errors, a full room, an exception) gives it back when the block ends.

    Counting first and giving back on failure (rather than reading the count, validating, then
    adding) keeps the cap exact across processes: the cache's incr is atomic, so two requests at
    the boundary can never both get the last place. The price is the other way round: while a
    request that will fail holds the last place, a concurrent one is refused.
    """
    window = settings.RATE_WINDOW_SECONDS  # a clock minute, unless a test lengthens it
    key = f"{limit.counted}:{client_address(request)}:{int(now // window)}"
    counted = _count(key, 1, keep_seconds=2 * window)
    if counted is not None and counted > getattr(settings, limit.setting):
        _count(key, -1)  # a refusal is not counted: waiting the minute out is enough
        yield None
        return
    reservation = Reservation()
    try:
        yield reservation
    finally:
        if counted is not None and not reservation.kept:
            _count(key, -1)


def _count(key: str, delta: int, keep_seconds: int = 120) -> int | None:
    """The counter after adding `delta`, or None when the cache is unavailable. A counter made
    here is kept `keep_seconds` (its window and one more)."""
    try:
        if delta > 0:
            cache.add(key, 0, timeout=keep_seconds)
        return cache.incr(key, delta)
    except ValueError:  # expired between the incr and its decr: nothing left to give back
        return None
    except (OSError, RedisConnectionError, RedisTimeoutError) as error:
        # Fail open: with Redis down, rooms can still be created and joined, only without the cap.
        warn(
            log,
            "cache_unavailable",
            "room creation limit not checked, cache unavailable: %s",
            error,
        )
        return None
