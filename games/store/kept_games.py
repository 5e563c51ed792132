"""The game each room's last move left, as this process wrote it, so that the room's next move
starts from it instead of reading the row back: the read was a round trip of two on PostgreSQL
and about a sixth of a move's time on SQLite (docs/performance.md).

A kept game is only ever a guess: the move's write goes through only if the row still holds
exactly that version, state and params and the room has no newer game (`rowsql.write_move`'s
`unchanged`). A copy gone stale (another process's move, a new game, an edit) costs one UPDATE
that changes nothing and the read it saved, never a wrong move. The store is bounded (`LIMIT`
rooms, the least recently moved in dropped first) and safe across threads; a game is taken out
while a move works on it and put back, as a copy, once the move's write is committed.
"""

import threading
from typing import NamedTuple

from cachetools import LRUCache

from .models import Game

LIMIT = 1_000
"""Rooms whose game a process keeps: a 50x50 board's state is some 30 KB, so at most about
30 MB; rooms past the limit just read their game as before."""


class Kept(NamedTuple):
    game: Game
    state_text: str
    """The state column's text as written, which the next write checks."""


_kept: LRUCache[int, Kept] = LRUCache(LIMIT)
_lock = threading.Lock()


def take(room_id: int) -> Kept | None:
    """The room's kept game, now the caller's alone (a second mover reads the row)."""
    with _lock:
        return _kept.pop(room_id, None)


def keep(game: Game, state_text: str) -> None:
    """Keep `game` as just written: a copy of the mover's, which nobody else holds."""
    kept = Kept(game, state_text)
    with _lock:
        _kept[game.room_id] = kept


def forget(room_id: int) -> None:
    """The room's game changed other than by a move (a new game, the bot's params)."""
    with _lock:
        _kept.pop(room_id, None)


def forget_all() -> None:
    """For tests: a database emptied between them may hand the same ids to other rooms."""
    with _lock:
        _kept.clear()
