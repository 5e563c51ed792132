"""Sockets taken out of the presence counts in one go, where their disconnect handler will not
run: their process is stopping (Daphne cancels the consumers first, see `shutdown`), or their
channel layer failed under them."""

from collections import Counter
from collections.abc import Iterable
from typing import Any

from channels.db import database_sync_to_async

from .. import services


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
        await database_sync_to_async(services.sockets_closed)(dict(players), dict(spectators))
