"""This process's open room sockets, which are closed together: with 1012 when the server stops
(`shutdown`), with 1013 when Redis is lost (`layer_watch`)."""

import weakref
from typing import Any

_live: "weakref.WeakSet[Any]" = weakref.WeakSet()


def track(consumer: Any) -> None:
    _live.add(consumer)


def forget(consumer: Any) -> None:
    _live.discard(consumer)


def open_sockets() -> list[Any]:
    return list(_live)
