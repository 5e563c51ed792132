"""Computer players, driven live from the websocket process: tic-tac-toe computers and the
Minesweeper Solver bot.

Whenever a computer may be due (a move or a new game through a socket, or a socket connecting),
the consumer calls `schedule(room)`. One asyncio task per room and event loop then plays every
computer move that falls due, each after a short pause, so people see the computer "think" and
computer-against-computer rooms play themselves while anyone watches (and carry on after a restart,
as soon as a socket reconnects).

Every move goes through `computers.computer_move(room, version)`, which does nothing unless the game
is still at that version: drivers in several processes, or a rematch meanwhile, never play a move
twice. The JSON API, which has no event loop to wait in, calls `computers.play_computer_turns` for
tic-tac-toe, and `wake` hands the Solver bot to the event loop its request thread serves.

When computers alone played a game (tic-tac-toe, computer against computer), the driver waits
the kind's `Computer.next_game_after` from the game's end (the room sees a countdown), then
starts the rematch through `computers.start_next_game_by_computer(room, replacing=N)`, which
does nothing once game N is no longer the current one: drivers in several processes start it
once. A driver starts a new game only while its process has a socket in the room; when the last
one leaves it stops, and the next socket to connect (here or anywhere) resumes from what the
database says (the finished game's end), so restarts lose nothing.

Kinds with a clock (`GameKind.clock`: a race's countdown, penalties and time limit, a Flags turn
timer) get one more task per room and loop, which sleeps until the current game's next timed
event and then applies it through `playing.tick`; every `schedule` makes it look again, since a
move may move the event. Ticks, like computer moves, are applied once however many processes'
drivers fire (`tick` finds nothing due the second time).

The Solver bot waits for a quiet moment: a person's move during its pause changes the version, so
its move is dropped and the pause starts again. It plays when people stop for a second, never
races them for a cell, and two drivers never double its pace. When nothing is provable it stops;
the next move (through a socket or the API) schedules it again.
"""

import asyncio
import contextvars
import logging
import time
from collections.abc import Coroutine
from typing import Any

from channels.db import database_sync_to_async
from django.utils import timezone

from ..broadcast import local
from ..broadcast.outbox import group_name
from ..kinds import kind_of
from ..kinds.table import Computer
from ..server_loop import server_loop
from ..store.models import Game, Room
from . import computers, playing

log = logging.getLogger(__name__)

PACE = 1.0
"""Each kind's computer waits `Computer.delay` seconds times this before a move, and
`Computer.next_game_after` times this before starting the next game by itself (tests shorten
it)."""

CLOCK_LOOK_AGAIN = 60.0
"""Seconds a clock driver sleeps at most before reading the game's next event again, should
something have changed it without telling this process."""

_tasks: dict[tuple[asyncio.AbstractEventLoop, int], asyncio.Task[None]] = {}
_wanted: set[tuple[asyncio.AbstractEventLoop, int]] = set()
_clocks: dict[tuple[asyncio.AbstractEventLoop, int], "ClockDriver"] = {}


def schedule(room: Room, game: Game | None = None) -> None:
    """Make sure a driver looks at `room` soon; cheap to call after anything that may matter.

    `game`, when the caller holds the game it just wrote. A room needs a driver only when its
    kind's computer `may_play` with the game's params, or else the room's settings (fresh when a
    socket connects): a Minesweeper room only with the Solver bot. That spares most rooms a
    query per move.
    """
    kind = kind_of(room.kind)
    if kind.clock is not None:
        _schedule_clock(room)
    computer = kind.computer
    if computer is None or not computer.may_play(
        game.params if game is not None else room.settings
    ):
        return
    loop = asyncio.get_running_loop()
    key = (loop, room.pk)
    # Ask the running driver to look again even if it is about to stop: it re-checks after its
    # last look, so a move committed meanwhile is never missed.
    _wanted.add(key)
    task = _tasks.get(key)
    if task is None or task.done():
        _tasks[key] = loop.create_task(_drive(room, key), name=f"autoplay-room-{room.pk}")


def wake(room: Room, game: Game | None = None) -> None:
    """`schedule` from a synchronous thread (the JSON API): on the event loop this thread works
    for, when it serves one (Daphne); under WSGI and in scripts there is none, and nothing runs."""
    loop = server_loop()
    if loop is not None:
        # A fresh context: the request's would tie the driver's database calls to the request's
        # executor, which is gone once the answer is sent.
        loop.call_soon_threadsafe(schedule, room, game, context=contextvars.Context())


async def _drive(room: Room, key: tuple[asyncio.AbstractEventLoop, int]) -> None:
    try:
        while key in _wanted:
            _wanted.discard(key)
            await _play_due_moves(room)
    except Exception:
        log.exception("computer player for room %s stopped", room.pk)
    finally:
        if _tasks.get(key) is asyncio.current_task():
            del _tasks[key]
        _wanted.discard(key)


async def _play_due_moves(room: Room) -> None:
    computer = kind_of(room.kind).computer
    assert computer is not None  # `schedule` drives only rooms with a computer
    while True:
        turn = await _to_the_end(database_sync_to_async(computers.computer_turn)(room))
        if turn is None:
            if await _next_game(room, computer):
                continue
            return
        number, version = turn
        await asyncio.sleep(computer.delay * PACE)
        await _to_the_end(
            database_sync_to_async(computers.computer_move)(room, version, game=number)
        )


def _schedule_clock(room: Room) -> None:
    key = (asyncio.get_running_loop(), room.pk)
    driver = _clocks.get(key)
    if driver is None or driver.task.done():
        _clocks[key] = ClockDriver(room, key)
    else:
        driver.look_again.set()


class ClockDriver:
    """Applies a room's timed events when they fall due, while this process has its sockets."""

    def __init__(self, room: Room, key: tuple[asyncio.AbstractEventLoop, int]) -> None:
        self.room = room
        self.key = key
        self.look_again = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(
            self._run(), name=f"clock-room-{room.pk}"
        )

    async def _run(self) -> None:
        try:
            await self._drive()
        except Exception:
            log.exception("clock of room %s stopped", self.room.pk)
        finally:
            if _clocks.get(self.key) is self:
                del _clocks[self.key]

    async def _drive(self) -> None:
        due_at = database_sync_to_async(playing.clock_due)
        while True:
            self.look_again.clear()
            due = await _to_the_end(due_at(self.room))
            if due is None:
                if self.look_again.is_set():
                    continue  # asked while reading: the read may predate the move that asked
                return  # nothing timed: the next move or socket schedules a new driver
            wait = due[2] - time.time()
            if wait > 0:
                try:
                    async with asyncio.timeout(min(wait, CLOCK_LOOK_AGAIN)):
                        await self.look_again.wait()  # a move may have moved the event
                except TimeoutError:
                    pass
                continue
            if local.sockets_in(group_name(self.room.pk)) == 0:
                return  # nobody here: the next socket to connect, here or anywhere, resumes
            ticked = await _to_the_end(database_sync_to_async(playing.tick)(self.room))
            if ticked is None and await _to_the_end(due_at(self.room)) == due:
                log.warning("room %s: a timed event fell due but changed nothing", self.room.pk)
                return  # the kind's clock and tick disagree: stop rather than spin
            if ticked is not None:
                schedule(self.room, ticked.game)  # a timed-out turn may pass to a computer


async def _next_game(room: Room, computer: Computer) -> bool:
    """After a game that computers alone played, wait out the pause and start the next one, if
    anyone in this process still watches. True when a newer game is now the room's current one
    (started here or by another driver), False when there is nothing to start or nobody here."""
    if computer.next_game_after is None:
        return False
    due = await _to_the_end(database_sync_to_async(computers.next_game_due)(room))
    if due is None:
        return False
    number, finished_at = due
    pause = computer.next_game_after * PACE
    await asyncio.sleep(max(0.0, pause - (timezone.now() - finished_at).total_seconds()))
    if local.sockets_in(group_name(room.pk)) == 0:
        return False  # nobody watching here: the next socket to connect resumes
    started = database_sync_to_async(computers.start_next_game_by_computer)
    outcome = await _to_the_end(started(room, replacing=number))
    return outcome.game.number > number


async def _to_the_end[T](step: Coroutine[Any, Any, T]) -> T:
    """Await a database step; if the driver is cancelled meanwhile, wait for the step to finish
    before giving up. Its thread runs on regardless of cancellation, so without this whoever stops
    a driver would think it stopped while its transaction still holds locks."""
    running = asyncio.ensure_future(step)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await asyncio.wait([running])
        raise


async def idle(room: Room) -> None:
    """Until this event loop has no driver for `room`: every move or game then due is played,
    and the driver stopped (for tests that show what a driver did not do)."""
    key = (asyncio.get_running_loop(), room.pk)
    while (task := _tasks.get(key)) is not None:
        await asyncio.wait([task])


async def clock_idle(room: Room) -> None:
    """Until this event loop has no clock driver for `room` (for tests)."""
    key = (asyncio.get_running_loop(), room.pk)
    while (driver := _clocks.get(key)) is not None:
        await asyncio.wait([driver.task])


async def stop() -> None:
    """Stop the drivers of the running event loop and wait until none is touching the database.
    Nothing is lost: a move is only ever applied whole, and drivers resume as soon as a socket
    connects again."""
    loop = asyncio.get_running_loop()
    mine = [task for (owner, _), task in list(_tasks.items()) if owner is loop]
    mine += [driver.task for (owner, _), driver in list(_clocks.items()) if owner is loop]
    for task in mine:
        task.cancel()
    await asyncio.gather(*mine, return_exceptions=True)
