"""Flood limits, on `games.limits`' token buckets: one per websocket (all its messages), and per
seat and per client address for moves, shared by the websocket and the JSON API; and the open
sockets per address. `address_key` is the unit every per-address limit counts
(docs/operations.md, "Limits")."""

import ipaddress

from django.conf import settings

from ..limits import Budget, Decision, Limit

MESSAGES = Limit.rate("messages", 40, 20.0)
"""Every message of one socket: pointer updates (10/s) plus fast clicking stay well inside
this; scripts flooding do not, and are closed with 1008 and this reason."""
SPECTATOR_MESSAGES = Limit.rate("spectator-messages", 10, 2.0)
"""Every message of one spectator's socket: a spectator has little to say (a `sync` after a
gap, a chat line, 5 in 10 s; moves, pings and reactions are refused), and sockets that ask and
never read were the memory attack of issue 26: 60 of them asking for snapshots at 18 a second
kept a quiet room's event loop busy reading (docs/performance.md)."""


def flood_reason(limit: Limit) -> str:
    """The 1008 close's reason (a close frame holds at most 123 bytes of it)."""
    return f"Too many messages: a burst of {limit.count}, then {limit}."


FLOOD_REASON = flood_reason(MESSAGES)
SPECTATOR_FLOOD_REASON = flood_reason(SPECTATOR_MESSAGES)


TOO_FAST = "Too many moves: slow down."


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
    """Fresh move budgets (tests: every test client shares one address)."""
    for each in _budgets.values():
        each.reset()
    _budgets.clear()


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
