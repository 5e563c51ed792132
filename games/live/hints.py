"""Hints from the room's sockets, bounded: one expensive request must not stall every room of
the process.

Every socket's database work shares one thread per process (`database_sync_to_async`), so the
solver (the costliest request a socket can make on a large board) does not run there: the game is read in one quick query,
the hint worked out on a worker thread of its own (or taken from `hint_cache`, once per game
version and process), and only the counter written back on the database thread. In front of
that: at most one hint a second per room, a budget per client address, and a short queue for
the worker. Past each, the sender alone hears why. The figures are in docs/operations.md
("Limits") and docs/performance.md.
"""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from channels.db import database_sync_to_async

from .. import hint_cache, services
from ..kinds.table import Refused
from ..limits import Budget, Limit
from ..models import Player, Room
from .flood import address_key

ROOM_INTERVAL = 1.0
"""Seconds between two hints in one room: everyone sees a hint, so a second one that soon
would mostly repeat it."""
ADDRESS_BURST = 10
ADDRESS_PER_MINUTE = 30
"""Hints per client address: a burst, then this many a minute; shared by all its sockets."""
QUEUE = 4
"""Hints waiting for the worker or being worked out, per process."""
KEPT = 10_000
"""Rooms and addresses remembered before the idle ones are forgotten."""

JUST_GIVEN = (
    "A hint was just given in this room: look for the outlined cell, or ask again in a second."
)
TOO_MANY = (
    f"Too many hints from your address: at most {ADDRESS_PER_MINUTE} a minute. Try again soon."
)
BUSY = "The server is busy working out hints. Try again in a moment."
CHANGED = "The game changed while the hint was worked out. Ask again."

_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hints")
"""One thread: the solver is CPU work, and more threads would only share the same core."""


def _address_budget() -> Budget:
    return Budget(
        Limit("socket-hints", ADDRESS_BURST, ADDRESS_BURST * 60 / ADDRESS_PER_MINUTE), KEPT
    )


@dataclass
class Limits:
    """The budgets (`games.limits.Budget`: per process, bounded to `KEPT` keys, or once for
    the deployment with `REDIS_URL`) and this process's worker queue."""

    rooms: Budget = field(
        default_factory=lambda: Budget(Limit("socket-hint-room", 1, ROOM_INTERVAL), KEPT)
    )
    """One hint per room every `ROOM_INTERVAL`: a bucket of one."""
    addresses: Budget = field(default_factory=_address_budget)
    waiting: int = 0
    """Hints queued for the worker or being worked out; the event loop is its one user."""

    async def admit(self, room_id: int, address: str, now: float) -> None:
        """Take a place for one hint, or raise Refused saying which limit it met (a room's or
        the queue's refusal takes nothing from the address)."""
        if not (await self.rooms.take_async(room_id, now)).allowed:
            raise Refused(JUST_GIVEN)
        if self.waiting >= QUEUE or not (await self.addresses.take_async(address, now)).allowed:
            await self.rooms.give_back_async(room_id)
            raise Refused(BUSY if self.waiting >= QUEUE else TOO_MANY)
        self.waiting += 1

    def done(self) -> None:
        self.waiting -= 1

    async def release(self, room_id: int) -> None:
        """Give the room its interval back after a refused hint (game over, first click)."""
        await self.rooms.give_back_async(room_id)


LIMITS = Limits()


def reset() -> None:
    """Fresh budgets and an empty cache (tests)."""
    global LIMITS
    LIMITS.rooms.reset()
    LIMITS = Limits()
    hint_cache.clear()


def address_of(scope: dict) -> str:
    """The client's address as limits count it (`address_key`): behind a proxy in
    TRUSTED_PROXIES, its X-Forwarded-For's (config/asgi.py puts it there)."""
    client = scope.get("client")
    return address_key(str(client[0]) if client else "unknown")


async def ask_hint(room: Room, player: Player | None, address: str) -> services.Outcome:
    """`services.ask_hint`, in three steps off the database thread's back, within the limits."""
    services.check_hint(room, player)
    limits = LIMITS
    await limits.admit(room.pk, address, time.monotonic())
    try:
        for _ in range(2):  # once more if the game ended or was replaced meanwhile
            board = await database_sync_to_async(services.read_hint_board)(room, player)
            cell = services.known_hint(board)
            if cell is hint_cache.MISSING:
                loop = asyncio.get_running_loop()
                cell = await loop.run_in_executor(_worker, services.work_out_hint, room, board)
            record = database_sync_to_async(services.record_hint)
            outcome = await record(room, player, board, cell)
            if outcome is not None:
                return outcome
        raise Refused(CHANGED)
    except Refused:
        await limits.release(room.pk)  # nobody was shown anything: the room may ask again at once
        raise
    finally:
        limits.done()
