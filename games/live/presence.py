"""This process's sockets in the presence counts: counted under `PROCESS`, and taken out in one
go where their disconnect handler will not run: their process is stopping (Daphne cancels the
consumers first, see `shutdown`), or their channel layer failed under them. A process that dies
without either is taken out by the others (`heartbeat`)."""

import uuid
from collections import Counter
from collections.abc import Iterable
from typing import Any

from channels.db import database_sync_to_async

from .. import services

PROCESS = uuid.uuid4().hex
"""This process's id in the presence counts (`models.ServerProcess`), new at every start."""


async def forget_presence(consumers: Iterable[Any]) -> None:
    players: Counter[int] = Counter()
    spectators: Counter[int] = Counter()
    for consumer in consumers:
        if not consumer.counted:
            continue
        consumer.counted = False
        if consumer.player is None:
            spectators[consumer.room.pk] += 1
        else:
            players[consumer.player.pk] += 1
    if players or spectators:
        await database_sync_to_async(services.sockets_closed)(
            dict(players), dict(spectators), PROCESS
        )
