"""Rate limits, in one vocabulary (docs/operations.md, "Limits"; docs/api.md, "Limits").

A `Limit` is named and says how many at once (`count`) and over how many seconds they come
back (`window`). It counts under a key (a socket, a seat, a room, a client address as
`flood.address_key` gives it) in one of two stores:

- `Buckets`, in the process's memory: a token bucket per key, which lets a person's bursts
  through (double clicks, quick flagging) and stops scripts. `count` is the burst and
  `count / window` the tokens back a second.
- `Shared`, in the Django cache (Redis in production), so the count holds across every server
  process: `count` per clock window of `window` seconds, or one per `window` from its use
  (`once`).

Every look-up answers a `Decision`: allowed or not, how many are left, and when one more will
be; `headers` turns it into the HTTP headers a 429 carries.
"""

import logging
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.core.cache import cache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .log_limit import warn

log = logging.getLogger(__name__)

CACHE_ERRORS = (OSError, RedisConnectionError, RedisTimeoutError)
"""What a `Shared` limit meets with the cache down: it then lets everything through (fails
open), so rooms can still be made and joined, only without the cap."""


@dataclass(frozen=True, slots=True)
class Limit:
    name: str
    """What is counted: the cache key's prefix and the RateLimit headers' policy name."""
    count: int
    """How many at once: a bucket's burst, a window's allowance."""
    window: float
    """Seconds over which `count` come back."""

    @classmethod
    def rate(cls, name: str, burst: float, per_second: float) -> "Limit":
        """A token bucket's limit as the settings give it: a burst, then so many a second."""
        return cls(name, int(burst), burst / per_second)

    @property
    def per_second(self) -> float:
        return self.count / self.window

    def __str__(self) -> str:
        """The pace in words, as refusals and close reasons quote it: "20 a second"."""
        for unit, seconds in (("second", 1), ("minute", 60)):
            figure = self.count * seconds / self.window
            if figure >= 1 and figure == round(figure):
                return f"{round(figure)} a {unit}"
        return f"{self.count} every {self.window:g} seconds"


@dataclass(frozen=True, slots=True)
class Decision:
    limit: Limit
    allowed: bool
    remaining: int
    """How many more would be allowed right now."""
    retry_after: float = 0.0
    """Seconds until one more is allowed (0.0 when this one was)."""


def allowed(limit: Limit) -> Decision:
    """The decision of a limit not counted (turned off, or its store unavailable)."""
    return Decision(limit, True, limit.count)


def headers(decision: Decision) -> dict[str, str]:
    """`Retry-After` (RFC 9110) and the RateLimit fields of draft-ietf-httpapi-ratelimit-headers
    (-10/-11: structured fields, a quota policy `q` per window `w` seconds, and what `r`
    remains until `t` seconds from now), all whole seconds rounded up."""
    limit, wait = decision.limit, max(1, math.ceil(decision.retry_after))
    return {
        "Retry-After": str(wait),
        "RateLimit-Policy": f'"{limit.name}";q={limit.count};w={math.ceil(limit.window)}',
        "RateLimit": f'"{limit.name}";r={decision.remaining};t={wait}',
    }


@dataclass
class TokenBucket:
    limit: Limit
    tokens: float
    updated: float

    @classmethod
    def full(cls, limit: Limit, now: float) -> "TokenBucket":
        return cls(limit, limit.count, now)

    def take(self, now: float) -> Decision:
        """Take one token if there is one; they come back at `limit.per_second`."""
        rate = self.limit.per_second
        self.tokens = min(self.limit.count, self.tokens + (now - self.updated) * rate)
        self.updated = now
        if self.tokens < 1:
            return Decision(self.limit, False, 0, (1 - self.tokens) / rate)
        self.tokens -= 1
        return Decision(self.limit, True, math.floor(self.tokens))

    def give_back(self) -> None:
        self.tokens = min(self.limit.count, self.tokens + 1)


class Buckets:
    """A token bucket per key, made full on first use and shared by every thread of the
    process (the API's request threads and the event loop). Memory stays bounded: past `kept`
    keys, those whose bucket has filled up again are forgotten (they lose nothing by it)."""

    def __init__(self, limit: Limit, kept: int = 10_000) -> None:
        self.limit, self.kept = limit, kept
        self.buckets: dict[object, TokenBucket] = {}
        self.lock = threading.Lock()

    def take(self, key: object, now: float) -> Decision:
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None:
                self._forget_full(now)
                bucket = self.buckets[key] = TokenBucket.full(self.limit, now)
            return bucket.take(now)

    def spent(self, key: object, now: float) -> bool:
        """Whether `key` has no token now (none is taken)."""
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None:
                return False
            return bucket.tokens + (now - bucket.updated) * self.limit.per_second < 1

    def give_back(self, key: object) -> None:
        """One token back to `key` (what it was refused further on was never given)."""
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is not None:
                bucket.give_back()

    def _forget_full(self, now: float) -> None:
        if len(self.buckets) >= self.kept:
            refill = self.limit.window
            self.buckets = {k: b for k, b in self.buckets.items() if now - b.updated < refill}


class Reservation:
    """One counted toward a `Shared` limit; given back unless what it was for is made (`keep`)."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.kept = False

    def keep(self) -> None:
        self.kept = True


class Shared:
    """A limit counted in the Django cache, per key: the same count for every process."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit

    @contextmanager
    def reserve(self, key: str, now: float) -> Iterator[Reservation]:
        """One of `limit.count` for `key` in this clock window of `limit.window` seconds; the
        reservation's decision says whether there was one. Only what is made counts: a
        reservation not `keep`-ed (a form with errors, a full room, an exception) is given
        back when the block ends, and a refusal is not counted (waiting is enough).

        Counting first and giving back on failure (rather than reading the count, validating,
        then adding) keeps the cap exact across processes: the cache's incr is atomic, so two
        requests at the boundary can never both get the last place. The price is the other way
        round: while a request that will fail holds the last place, a concurrent one is refused.
        """
        limit = self.limit
        window = int(now // limit.window)
        cache_key = f"{limit.name}:{key}:{window}"
        counted = self._count(cache_key, 1)
        if counted is None:
            yield Reservation(allowed(limit))
            return
        if counted > limit.count:
            self._count(cache_key, -1)
            retry = (window + 1) * limit.window - now
            yield Reservation(Decision(limit, False, 0, retry))
            return
        reservation = Reservation(Decision(limit, True, limit.count - counted))
        try:
            yield reservation
        finally:
            if not reservation.kept:
                self._count(cache_key, -1)

    def once(self, key: str, now: float) -> Decision:
        """At most one for `key` every `limit.window` seconds, counted from that one."""
        limit = self.limit
        if limit.window <= 0:
            return allowed(limit)
        cache_key = f"{limit.name}:{key}"
        try:
            if cache.add(cache_key, now, timeout=max(1, math.ceil(limit.window))):
                return Decision(limit, True, 0)
            since = cache.get(cache_key, now)
        except CACHE_ERRORS as error:
            warn(
                log, "cache_unavailable", "%s not checked, cache unavailable: %s", limit.name, error
            )
            return allowed(limit)
        return Decision(limit, False, 0, max(0.0, since + limit.window - now))

    def give_back(self, key: str) -> None:
        """`once`'s place for `key` back: what it was taken for was refused further on."""
        try:
            cache.delete(f"{self.limit.name}:{key}")
        except CACHE_ERRORS as error:
            log.warning("%s not given back, cache unavailable: %s", self.limit.name, error)

    def _count(self, key: str, delta: int) -> int | None:
        """The counter after adding `delta`, or None when the cache is unavailable."""
        try:
            if delta > 0:
                cache.add(key, 0, timeout=math.ceil(2 * self.limit.window))
            return cache.incr(key, delta)
        except ValueError:  # expired between the incr and its decr: nothing left to give back
            return None
        except CACHE_ERRORS as error:
            warn(
                log,
                "cache_unavailable",
                "%s not checked, cache unavailable: %s",
                self.limit.name,
                error,
            )
            return None
