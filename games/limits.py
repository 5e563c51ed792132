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
- `Budget`, a person's or an address's pace (moves, chat, pings, socket hints): `Buckets` in
  the embedded shape; with `REDIS_URL`, the `limits` package's moving window in Redis, so two
  processes count one seat's moves once (`Deployment`).

Every look-up answers a `Decision`: allowed or not, how many are left, and when one more will
be; `headers` turns it into the HTTP headers a 429 carries.
"""

import asyncio
import logging
import math
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from limits import RateLimitItemPerSecond
from limits.aio.storage import RedisStorage as AsyncRedisStorage
from limits.aio.strategies import MovingWindowRateLimiter as AsyncMovingWindow
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
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
    """How many more would be allowed right now (read on refusals only: a deployment-wide
    `Budget` that allowed one does not ask Redis how many are left, and says 0)."""
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

    def spent(self, key: object, now: float, below: float = 1) -> bool:
        """Whether `key` holds fewer than `below` tokens now (none is taken)."""
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None:
                return False
            return bucket.tokens + (now - bucket.updated) * self.limit.per_second < below

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


REDIS_ERRORS = (OSError, RedisError)
"""What a `Budget` meets with Redis down: it then counts in this process only (`Buckets`)."""
REDIS_TIMEOUT = 1.0
"""Seconds a budget waits for Redis: a move must not hang on it (the layer's own sockets wait
without end; these are one short script each)."""


class Deployment:
    """Budgets counted once for the whole deployment: the `limits` package's moving window on
    Redis, synchronous for request and database threads, asynchronous (redis.asyncio, one
    client per event loop: a client belongs to its loop) for the sockets' event loop.

    A moving window of `count` per `window` seconds (a `Limit.rate`'s burst over burst / rate
    seconds) is the closest of the package's strategies to a token bucket: the same burst, the
    same pace over any longer stretch; but a burst spent comes back as it aged out (`window`
    seconds after each), not one token every 1 / rate (docs/operations.md, "Limits")."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url, self.prefix = url, prefix
        options: dict[str, Any] = {
            "socket_timeout": REDIS_TIMEOUT,
            "socket_connect_timeout": REDIS_TIMEOUT,
        }
        self.storage = RedisStorage(url, key_prefix=prefix, **options)
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.options = options
        self.by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncMovingWindow] = (
            weakref.WeakKeyDictionary()
        )

    def async_limiter(self) -> AsyncMovingWindow:
        loop = asyncio.get_running_loop()
        limiter = self.by_loop.get(loop)
        if limiter is None:
            storage = AsyncRedisStorage(
                f"async+{self.url}",
                implementation="redispy",
                key_prefix=self.prefix,
                **self.options,
            )
            limiter = self.by_loop[loop] = AsyncMovingWindow(storage)
        return limiter

    @staticmethod
    def item(limit: Limit) -> RateLimitItemPerSecond:
        """`limit` as the package counts it: whole seconds (a window under one is one)."""
        return RateLimitItemPerSecond(limit.count, max(1, round(limit.window)), limit.name)

    def refused(self, limit: Limit, stats_reset: float) -> Decision:
        return Decision(limit, False, 0, max(0.0, stats_reset - time.time()))

    def take(self, limit: Limit, key: object) -> Decision:
        return self._decide(self.limiter.hit, limit, key)

    async def take_async(self, limit: Limit, key: object) -> Decision:
        return await self._decide_async(self.async_limiter().hit, limit, key)

    def test(self, limit: Limit, key: object) -> Decision:
        return self._decide(self.limiter.test, limit, key)

    async def test_async(self, limit: Limit, key: object) -> Decision:
        return await self._decide_async(self.async_limiter().test, limit, key)

    def _decide(self, ask: Callable[[Any, str], bool], limit: Limit, key: object) -> Decision:
        """`ask` (the limiter's hit or test) for `key`; a refusal says when the window frees."""
        item = self.item(limit)
        if ask(item, str(key)):
            return Decision(limit, True, 0)
        return self.refused(limit, self.limiter.get_window_stats(item, str(key)).reset_time)

    async def _decide_async(
        self, ask: Callable[[Any, str], Awaitable[bool]], limit: Limit, key: object
    ) -> Decision:
        item = self.item(limit)
        if await ask(item, str(key)):
            return Decision(limit, True, 0)
        stats = await self.async_limiter().get_window_stats(item, str(key))
        return self.refused(limit, stats.reset_time)

    def clear(self, limit: Limit, key: object) -> None:
        self.limiter.clear(self.item(limit), str(key))

    async def clear_async(self, limit: Limit, key: object) -> None:
        await self.async_limiter().clear(self.item(limit), str(key))


_deployment: Deployment | None = None


def deployment() -> Deployment | None:
    """The deployment's counter when `REDIS_URL` is set (its keys under `CACHE_KEY_PREFIX`,
    as the cache's: test runs and deployments sharing one Redis keep apart), else None."""
    global _deployment
    url = settings.REDIS_URL
    if not url:
        return None
    prefix = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:budgets"
    if _deployment is None or (_deployment.url, _deployment.prefix) != (url, prefix):
        _deployment = Deployment(url, prefix)
    return _deployment


def _redis_failed(limit: Limit, error: Exception) -> None:
    warn(
        log,
        "budget_unavailable",
        "%s counted in this process only, Redis unavailable: %s",
        limit.name,
        error,
    )


class Budget:
    """A `Limit` per key, for a person's or an address's pace: `Buckets` in this process's
    memory without `REDIS_URL` (the embedded shape: one process, nothing to share); with it,
    once for the whole deployment (`Deployment`), behind this process's own buckets.

    The local buckets come first, so a flood one process sees is refused there without a trip
    to Redis (the price of a deployment-wide count is one short Redis script per budget and
    accepted message). With Redis unavailable the local count alone holds (one process's
    share, as before Redis counted)."""

    def __init__(self, limit: Limit, kept: int = 10_000) -> None:
        self.limit = limit
        self.local = Buckets(limit, kept)

    def take(self, key: object, now: float) -> Decision:
        """One from `key`'s budget, or the refusal (nothing counted by it)."""
        decision = self.local.take(key, now)
        shared = deployment()
        if shared is None or not decision.allowed:
            return decision
        try:
            counted = shared.take(self.limit, key)
        except REDIS_ERRORS as error:
            _redis_failed(self.limit, error)
            return decision
        if not counted.allowed:
            self.local.give_back(key)
        return counted

    async def take_async(self, key: object, now: float) -> Decision:
        """`take` for the event loop: the Redis script awaited, never waited on."""
        decision = self.local.take(key, now)
        shared = deployment()
        if shared is None or not decision.allowed:
            return decision
        try:
            counted = await shared.take_async(self.limit, key)
        except REDIS_ERRORS as error:
            _redis_failed(self.limit, error)
            return decision
        if not counted.allowed:
            self.local.give_back(key)
        return counted

    def give_back(self, key: object) -> None:
        """One back to `key` (what it was taken for was refused further on). A moving window
        in Redis cannot give one back; a budget of one is cleared instead, which is the same."""
        self.local.give_back(key)
        shared = deployment()
        if shared is not None and self.limit.count == 1:
            try:
                shared.clear(self.limit, key)
            except REDIS_ERRORS as error:
                _redis_failed(self.limit, error)

    async def give_back_async(self, key: object) -> None:
        self.local.give_back(key)
        shared = deployment()
        if shared is not None and self.limit.count == 1:
            try:
                await shared.clear_async(self.limit, key)
            except REDIS_ERRORS as error:
                _redis_failed(self.limit, error)

    def reset(self) -> None:
        """Every key full again, here and in Redis (tests)."""
        with self.local.lock:
            self.local.buckets.clear()
        shared = deployment()
        if shared is not None:
            shared.storage.reset()


def take_all(budgets: Iterable[tuple[Budget, object]], now: float) -> Decision | None:
    """One from each budget under its key, or the first refusal with nothing counted: a refusal
    by a later budget costs the earlier ones nothing. In Redis, each is tested first and then
    taken (a moving window cannot give one back)."""
    pairs = list(budgets)
    if deployment() is not None:
        for budget, key in pairs:
            looked = _test(budget, key)
            if not looked.allowed:
                return looked
    taken: list[tuple[Budget, object]] = []
    for budget, key in pairs:
        decision = budget.take(key, now)
        if not decision.allowed:
            for earlier, its_key in taken:
                earlier.local.give_back(its_key)
            return decision
        taken.append((budget, key))
    return None


async def take_all_async(budgets: Iterable[tuple[Budget, object]], now: float) -> Decision | None:
    """`take_all` for the event loop."""
    pairs = list(budgets)
    shared = deployment()
    if shared is not None:
        for budget, key in pairs:
            try:
                looked = await shared.test_async(budget.limit, key)
            except REDIS_ERRORS as error:
                _redis_failed(budget.limit, error)
                break
            if not looked.allowed:
                return looked
    taken: list[tuple[Budget, object]] = []
    for budget, key in pairs:
        decision = await budget.take_async(key, now)
        if not decision.allowed:
            for earlier, its_key in taken:
                earlier.local.give_back(its_key)
            return decision
        taken.append((budget, key))
    return None


def _test(budget: Budget, key: object) -> Decision:
    shared = deployment()
    assert shared is not None
    try:
        return shared.test(budget.limit, key)
    except REDIS_ERRORS as error:
        _redis_failed(budget.limit, error)
        return allowed(budget.limit)
