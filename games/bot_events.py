"""What bots on the websocket read: JSON events, for every kind, from the kind's table.

The same facts the JSON API gives (`text_rows`, `changed_cells`), one event per message
(docs/contracts.md, "Bots on the websocket"): a `snapshot` on every connect and every new game, a `move`
for every version, so a bot follows the game as a page does and spots a gap by the version. A
bot sees what its seat may see: in a race (`GameKind.per_seat_boards`) only the mover's bot gets
the move's cells, and after a timed event every bot gets a snapshot of its own board.
"""

import json
from typing import Any

from . import audiences
from .kinds.table import GameKind, MoveNews
from .models import Game, Room


def snapshot(kind: GameKind, room: Room, game: Game, seat: int | None) -> str:
    """The whole game as `seat` (None: a spectator) may see it."""
    rows, extra = kind.text_rows(game.state, game.params, seat)
    event = {
        "type": "snapshot",
        "game": kind.name,
        "number": game.number,
        "version": game.version,
        "status": game.status,
        "board": rows,
        **extra,
    }
    return _text(event)


def move(kind: GameKind, news: MoveNews) -> dict[str, str]:
    """The move's event per audience key: everyone's, and the mover's own when it differs."""
    applied, game = news.applied, news.game
    event: dict[str, Any] = {
        "type": "move",
        "game": kind.name,
        "number": game.number,
        "version": game.version,
        "status": applied.status,
        "cells": kind.changed_cells(applied),
    }
    for key in kind.public_summary:
        if key in applied.summary:
            event[key] = applied.summary[key]
    if kind.per_seat_boards is None:
        return {audiences.JSON: _text(event)}
    if news.mover is None:  # a timed event (a race's start) may change every board
        return {audiences.RESYNC: audiences.RESYNC_TEXT}
    texts = {audiences.JSON: _text({**event, "cells": []})}
    if news.mover is not None:
        texts[audiences.json_seat(news.mover.number)] = _text(event)
    return texts


def error(message: str) -> str:
    return _text({"type": "error", "error": message})


def _text(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"))
