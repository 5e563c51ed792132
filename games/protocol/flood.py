"""Flood limits, on `games.limits`' token buckets: one per websocket (all its messages), one per
websocket and per client address for control frames (`ControlFrames`), and per seat and per
client address for moves, shared by the websocket and the JSON API; and the open sockets per
address. `address_key` is the unit every per-address limit counts
(docs/operations.md, "Limits")."""

import ipaddress
import logging
import time

from django.conf import settings

from .. import metrics
from ..limits import Buckets, Budget, Decision, Limit, TokenBucket
from ..log_limit import warn

log = logging.getLogger(__name__)

MESSAGES = Limit.rate("messages", 40, 20.0)
"""Every message of one socket: pointer updates (10/s) plus fast clicking stay well inside
this; scripts flooding do not, and are closed with 1008 and this reason."""
SPECTATOR_MESSAGES = Limit.rate("spectator-messages", 10, 2.0)
"""Every message of one spectator's socket: a spectator has little to say (a `sync` after a
gap, a chat line, 5 in 10 s; moves, pings and reactions are refused), and sockets that ask and
never read were the memory attack of issue 26: 60 of them asking for snapshots at 18 a second
kept a quiet room's event loop busy reading (docs/performance.md)."""


def flood_reason(limit: Limit, what: str = "messages") -> str:
    """The 1008 close's reason (a close frame holds at most 123 bytes of it)."""
    return f"Too many {what}: a burst of {limit.count}, then {limit}."


FLOOD_REASON = flood_reason(MESSAGES)
SPECTATOR_FLOOD_REASON = flood_reason(SPECTATOR_MESSAGES)


TOO_FAST = "Too many moves: slow down."


CONTROL_FRAMES = Limit.rate("control-frames", 20, 2.0)
"""The control frames (ping, pong, close) of one socket, of any websocket, with a seat or
without: a page sends only the pong to Daphne's ping every 20 s, a bot's library a ping of its
own about as often; four tokenless sockets sending pings without end held Daphne at 97 % of a
core (issue 33). Counted apart from `MESSAGES`, before autobahn answers them
(`games.patches.autobahn_control_frames`), and past it the socket closes with 1008 and this
reason."""
ADDRESS_CONTROL_FRAMES = Limit.rate("address-control-frames", 200, 50.0)
"""The control frames of every socket of one address (`address_key`) together, per process:
its 200 sockets (`SOCKETS_PER_ADDRESS`) at a bot's keepalive pace fit; an attacker opening
socket after socket to spend each one's own budget does not."""
CONTROL_FLOOD_REASON = flood_reason(CONTROL_FRAMES, "control frames")
ADDRESS_CONTROL_FLOOD_REASON = flood_reason(
    ADDRESS_CONTROL_FRAMES, "control frames from your address"
)
_address_control_frames = Buckets(ADDRESS_CONTROL_FRAMES)


def control_frames_spent(address: str) -> bool:
    """Whether `address` (an `address_key`) has spent its control-frame budget: its new room
    sockets are refused before any database work until half its burst has come back (2 s at
    the address's pace: a trickle of one token would let it in again 20 ms later). A socket closed
    for flooding and opened again at once would otherwise cost a room lookup, a snapshot and
    two presence writes each time, the attack's whole cost once its pings were bounded
    (issue 33: a quiet room's p50 at 0.5-2 s with 8-11 reopened a second)."""
    return _address_control_frames.spent(
        address, time.monotonic(), below=ADDRESS_CONTROL_FRAMES.count / 2
    )


class ControlFrames:
    """One socket's control frames, counted against its own budget and its address's."""

    def __init__(self, address: str) -> None:
        self.address = address_key(address)
        self.bucket = TokenBucket.full(CONTROL_FRAMES, time.monotonic())

    def refusal(self, now: float) -> str | None:
        """Count one; None while both budgets allow it, else the close's reason."""
        if not self.bucket.take(now).allowed:
            reason = CONTROL_FLOOD_REASON
        elif not _address_control_frames.take(self.address, now).allowed:
            reason = ADDRESS_CONTROL_FLOOD_REASON
        else:
            return None
        warn(log, "control_frames", "closing a socket flooding control frames (%s)", self.address)
        metrics.refused("control_frames")
        return reason


_budgets: dict[Limit, Budget] = {}


def budget(name: str) -> Budget:
    """The move budget `name` ("MOVES" per seat, "ADDRESS_MOVES" per client address) as the
    settings `<name>_BURST` and `<name>_PER_SECOND` give it (docs/operations.md, "Limits"); a
    changed setting starts a fresh one. Counted once for the deployment with `REDIS_URL`."""
    burst = float(getattr(settings, f"{name}_BURST"))
    rate = float(getattr(settings, f"{name}_PER_SECOND"))
    limit = Limit.rate(name.lower().replace("_", "-"), burst, rate)
    if limit not in _budgets:
        _budgets[limit] = Budget(limit)
    return _budgets[limit]


def reset() -> None:
    """Fresh move and control-frame budgets (tests: every test client shares one address)."""
    _budgets.clear()
    _address_control_frames.buckets.clear()


def move_budget(seat: int, address: str, now: float) -> Decision:
    """Take one move from the seat's budget and its address's (`address`: an `address_key`):
    the seat's is one person's pace whichever door (websocket or API); the address's lets a
    classroom behind one NAT play fast, not one client cycling through seats it took. The
    refusal when either had none (the sender is told; no move is played), else the address's
    decision."""
    by_seat = budget("MOVES").take(seat, now)
    return by_seat if not by_seat.allowed else budget("ADDRESS_MOVES").take(address, now)


async def move_budget_async(seat: int, address: str, now: float) -> Decision:
    """`move_budget` for the event loop (a socket's move): Redis awaited, never waited on."""
    by_seat = await budget("MOVES").take_async(seat, now)
    if not by_seat.allowed:
        return by_seat
    return await budget("ADDRESS_MOVES").take_async(address, now)


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
