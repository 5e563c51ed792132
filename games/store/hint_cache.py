"""Hints already worked out, per process: a hint depends only on the public board, that is on
the game at one version, so every socket, room page and API call of the process asking about
the same (game id, version) shares one solver run. Bounded (least recently used goes first);
a lock, because the hint worker thread and the database thread both use it."""

import threading

from cachetools import LRUCache

SIZE = 512
"""Entries kept: a (game id, version) key and a cell each, so a few tens of kilobytes."""

MISSING = object()
"""`get`'s answer for a key not kept (None is a hint too: "nothing can be proved")."""

_kept: LRUCache[tuple[int, int], tuple[int, int] | None] = LRUCache(SIZE)
_lock = threading.Lock()


def get(game_id: int, version: int) -> object:
    """The hint kept for this game at this version, or MISSING."""
    key = (game_id, version)
    with _lock:
        return _kept.get(key, MISSING)


def put(game_id: int, version: int, cell: tuple[int, int] | None) -> None:
    with _lock:
        _kept[(game_id, version)] = cell


def clear() -> None:
    """Forget every hint (tests: a database flushed between them can give ids again)."""
    with _lock:
        _kept.clear()
