"""Hints: a provably safe cell shown to the whole room, counted, never a move.

`ask_hint` is the one flow, in three steps: the board read (`read_hint_board`), the hint worked
out (`work_out_hint`, once per game version and process: `hint_cache`) and the count written
with the cell (`record_hint`). The JSON API runs them on its request's thread; the room socket
(`ask_hint_async`) runs the same three off the database thread's back, bounded: one expensive
request must not stall every room of the process.

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
from functools import partial
from typing import Any

from channels.db import database_sync_to_async
from django.db import transaction
from django.db.models import F

from ..broadcast import announce
from ..kinds import kind_of
from ..kinds.table import HINTED, Applied, Invalid, Refused
from ..limits import Budget, Limit
from ..protocol.flood import address_key
from ..store import hint_cache, rowsql
from ..store.models import Game, Player, Room
from . import playing
from .base import Forbidden, Outcome

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


async def ask_hint_async(room: Room, player: Player | None, address: str) -> Outcome:
    """`ask_hint`, in its three steps off the database thread's back, within the limits."""
    check_hint(room, player)
    limits = LIMITS
    await limits.admit(room.pk, address, time.monotonic())
    try:
        for _ in range(2):  # once more if the game ended or was replaced meanwhile
            board = await database_sync_to_async(read_hint_board)(room, player)
            cell = known_hint(board)
            if cell is hint_cache.MISSING:
                loop = asyncio.get_running_loop()
                cell = await loop.run_in_executor(_worker, work_out_hint, room, board)
            record = database_sync_to_async(record_hint)
            outcome = await record(room, player, board, cell)
            if outcome is not None:
                return outcome
        raise Refused(CHANGED)
    except Refused:
        await limits.release(room.pk)  # nobody was shown anything: the room may ask again at once
        raise
    finally:
        limits.done()


def ask_hint(room: Room, player: Player | None) -> Outcome:
    """A provably safe hidden cell for everyone in the room: `summary["hint"]` is its (x, y), or
    None when the public board proves no cell safe (then a guess is needed).

    The hint is not a move: no state, move log or version changes (see `Hints.hint`); the room's
    counter goes up, also when the answer is "guess", because that answer tells the room something
    too. Everyone sees the cell highlighted and a line saying who asked. The answer is worked out
    once per game version and process (`hint_cache`); the room's socket works it out off the
    database thread (`ask_hint_async`), through the same three steps as here.
    """
    board = read_hint_board(room, player)
    outcome = record_hint(room, player, board, work_out_hint(room, board))
    if outcome is None:  # the game ended or was replaced meanwhile: again, under the lock
        with transaction.atomic():
            game = playing.lock_current_game(room)
            board = HintBoard(game.pk, game.version, game.state)
            outcome = record_hint(room, player, board, work_out_hint(room, board))
    assert outcome is not None  # under the lock nothing can get in between
    return outcome


@dataclass(frozen=True)
class HintBoard:
    """The game a hint is worked out for, as read: its id, version and state."""

    game_id: int
    version: int
    state: dict[str, Any]


def check_hint(room: Room, player: Player | None) -> None:
    """Whether `player` may ask for a hint here at all: no database needed."""
    if kind_of(room.kind).hints is None:
        raise Invalid("Hints are for Minesweeper rooms.")
    if player is None or player.is_spectator:
        raise Forbidden("Spectators can watch but not ask for hints. Open the invite link to join.")


def read_hint_board(room: Room, player: Player | None) -> HintBoard:
    """The room's current game, read without a lock: one quick query."""
    check_hint(room, player)
    game = rowsql.current_game(room.pk, locked=False)
    return HintBoard(game.pk, game.version, game.state)


def known_hint(board: HintBoard) -> object:
    """The hint already worked out in this process for this game version, or
    `hint_cache.MISSING`."""
    return hint_cache.get(board.game_id, board.version)


def work_out_hint(room: Room, board: HintBoard) -> tuple[int, int] | None:
    """The kind's hint for `board` (the solver, 15-25 ms on a 50x50 mid-game), once per game
    version and process. No database: safe on any thread. Refused when the game is over."""
    cell = known_hint(board)
    if cell is hint_cache.MISSING:
        hints = kind_of(room.kind).hints
        assert hints is not None
        cell = hints.hint(board.state)  # Refused when the game is over: nothing kept or counted
        hint_cache.put(board.game_id, board.version, cell)
    return cell  # type: ignore[return-value]


def record_hint(
    room: Room, player: Player | None, board: HintBoard, cell: tuple[int, int] | None
) -> Outcome | None:
    """Count the hint, keep its cell in the game's params (`HINTED`: the kind's computer leaves
    it for the people) and announce it after the commit; None, and nothing written, when the
    game read is over or no longer the room's, or a move that landed meanwhile opened the cell
    (the hint would show nothing). Another move changes nothing: mines do not move, so a cell
    proved safe stays safe."""
    hints = kind_of(room.kind).hints
    assert hints is not None
    with transaction.atomic():
        game = playing.lock_current_game(room)
        if game.pk != board.game_id or (game.version != board.version and game.is_over):
            return None
        if cell is not None and game.version != board.version and hints.opened(game.state, cell):
            return None
        Room.objects.filter(pk=room.pk).update(hints_used=F("hints_used") + 1)
        game.params = {**game.params, HINTED: cell}
        Game.objects.filter(pk=game.pk).update(params=game.params)
        assert player is not None  # `check_hint` refused a reader without a seat
        transaction.on_commit(partial(announce.hint, room.pk, player.nickname, cell))
    return Outcome(game, Applied(game.state, game.status, (), {"hint": cell}))
