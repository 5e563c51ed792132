"""Flood limits. Token buckets let a person's bursts through (double clicks, quick flagging)
and stop scripts: one per websocket (all its messages), and per seat and per client address for
moves, shared by the websocket and the JSON API. `address_key` is the unit every per-address
limit counts (docs/operations.md, "Limits")."""

import ipaddress
import threading
from dataclasses import dataclass

from django.conf import settings

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


class Buckets:
    """A token bucket per key (a seat, an address), made full on first use and shared by
    every thread of the process (the API's request threads and the event loop). Memory stays
    bounded: past `kept` keys, those whose bucket has filled up again are forgotten (they lose
    nothing by it)."""

    def __init__(self, capacity: float, rate: float, kept: int = 10_000) -> None:
        self.capacity, self.rate, self.kept = capacity, rate, kept
        self.buckets: dict[object, TokenBucket] = {}
        self.lock = threading.Lock()

    def wait(self, key: object, now: float) -> float:
        """Take a token for `key`: 0.0 when there was one, else the seconds until there is."""
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None:
                self._forget_full(now)
                bucket = self.buckets[key] = TokenBucket.full(self.capacity, self.rate, now)
            if bucket.allow(now):
                return 0.0
            return (1 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        if len(self.buckets) >= self.kept:
            refill = self.capacity / self.rate
            self.buckets = {k: b for k, b in self.buckets.items() if now - b.updated < refill}


TOO_FAST = "Too many moves: slow down."


_budgets: dict[tuple[str, float, float], Buckets] = {}


def budget(name: str) -> Buckets:
    """The move budget `name` ("MOVES" per seat, "ADDRESS_MOVES" per client address) as the
    settings `<name>_BURST` and `<name>_PER_SECOND` give it (docs/operations.md, "Limits"); a
    changed setting starts a fresh one."""
    burst = float(getattr(settings, f"{name}_BURST"))
    rate = float(getattr(settings, f"{name}_PER_SECOND"))
    key = (name, burst, rate)
    if key not in _budgets:
        _budgets[key] = Buckets(burst, rate)
    return _budgets[key]


def reset() -> None:
    """Fresh move budgets (tests: every test client shares one address)."""
    _budgets.clear()


def move_wait(seat: int, address: str, now: float) -> float:
    """Take one move from the seat's budget and its address's (`address`: an `address_key`):
    the seat's is one person's pace whichever door (websocket or API); the address's lets a
    classroom behind one NAT play fast, not one client cycling through seats it took. 0.0 when
    both had one, else the seconds to wait (the sender is told; no move is played)."""
    return budget("MOVES").wait(seat, now) or budget("ADDRESS_MOVES").wait(address, now)


SOCKETS_PER_ADDRESS = 200
"""Room websockets one client address (`address_key`) may hold open at once, per process: a
classroom behind one NAT with a few tabs each fits; a script opening thousands does not."""


class OpenSockets:
    """Open room sockets per address in this process. The event loop is its one user (no
    lock), and an address is forgotten when its last socket closes (bounded memory)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """Count one more socket of `address`; False (and nothing counted) at the cap."""
        held = self.counts.get(address, 0)
        if held >= self.cap:
            return False
        self.counts[address] = held + 1
        return True

    def give_back(self, address: str) -> None:
        held = self.counts.get(address, 0) - 1
        if held > 0:
            self.counts[address] = held
        else:
            self.counts.pop(address, None)


SOCKETS = OpenSockets(SOCKETS_PER_ADDRESS)


def address_key(address: str) -> str:
    """What every per-address limit counts: an IPv4 address, but an IPv6 /64 (one holder gets a
    whole /64 and could otherwise take a fresh address per request), and the whole loopback
    range as one (127.0.0.2 is the same machine as 127.0.0.1)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address  # "unknown", a Unix socket's path
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
