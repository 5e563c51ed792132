"""This process's sockets in the presence counts: counted under `PROCESS`, and taken out in one
go where their disconnect handler will not run: their process is stopping (Daphne cancels the
consumers first, see `shutdown`), or their channel layer failed under them. A process that dies
without either is taken out by the others (`heartbeat`). Spectators reach the database with
their room's next presence message (`rosters`); until then they are `Arrivals` here."""

import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async

from games.rooms import presence

PROCESS = uuid.uuid4().hex
"""This process's id in the presence counts (`models.ServerProcess`), new at every start."""


@dataclass(slots=True)
class Arrivals:
    """Spectator sockets of one room counted in this process but not yet in the database. Once
    `written` (taken by the step that writes them), a socket among them that leaves must be
    taken out of the database; before, it only leaves this count."""

    sockets: int = 0
    written: bool = False
    crowd: Counter[str] = field(default_factory=Counter)
    """The room's spectator sockets in this process per client address (`rosters`), shared by
    every `Arrivals` of the room, so a socket leaves it however it goes (`leave_crowd`)."""


def leave_crowd(arrivals: Arrivals, address: str) -> None:
    """A spectator socket from `address` is gone: one fewer in the room's crowd."""
    arrivals.crowd[address] -= 1
    if arrivals.crowd[address] <= 0:
        del arrivals.crowd[address]


def forget_arrival(arrivals: Arrivals) -> bool:
    """Take a socket out of `arrivals` if they are not written yet: then the database never
    hears of it. False once written: the database must take it out."""
    if arrivals.written:
        return False
    arrivals.sockets -= 1
    return True


async def forget_presence(consumers: Iterable[Any]) -> None:
    players: Counter[int] = Counter()
    spectators: Counter[int] = Counter()
    for consumer in consumers:
        if not consumer.counted:
            continue
        consumer.counted = False
        if consumer.player is None:
            leave_crowd(consumer.arrivals, consumer.address)
            if not forget_arrival(consumer.arrivals):
                spectators[consumer.room.pk] += 1
        else:
            players[consumer.player.pk] += 1
    if players or spectators:
        await database_sync_to_async(presence.sockets_closed)(
            dict(players), dict(spectators), PROCESS
        )
