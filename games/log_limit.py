"""Warnings that come in floods, logged at most once per `INTERVAL` each: an attacker's hundred
sockets cut off, or every message while Redis is down, would otherwise write a line each (1,305
lines in 30 s; 291 for a 10 s Redis outage). The first of an interval is logged in full; the
next one after the interval first says how many were left out. Every one is counted in
`metrics.WARNINGS`, by event, so nothing is lost to the eye that reads the metrics."""

import logging
import os
import threading
import time
from dataclasses import dataclass

from . import metrics

INTERVAL = float(os.environ.get("LOG_LIMIT_SECONDS", "10"))
"""Seconds between two lines of one event (a test that reads the log for each one sets 0)."""


@dataclass
class _Window:
    started: float
    left_out: int = 0


_windows: dict[str, _Window] = {}
_lock = threading.Lock()  # the event loop and the database thread both warn


def warn(log: logging.Logger, event: str, message: str, *args: object) -> None:
    """`log.warning(message, *args)` unless `event` was logged less than `INTERVAL` ago; counted
    in the metrics either way. `event` is a short fixed name (a metrics label)."""
    metrics.WARNINGS.labels(event).inc()
    now = time.monotonic()
    with _lock:
        window = _windows.get(event)
        if window is not None and now - window.started < INTERVAL:
            window.left_out += 1
            return
        _windows[event] = _Window(now)
    if window is not None and window.left_out:
        log.warning(
            "%d more %r warnings in the %.0f s before this one were left out of the log",
            window.left_out,
            event,
            now - window.started,
        )
    log.warning(message, *args)


def reset() -> None:
    """Every event may log again at once (tests)."""
    with _lock:
        _windows.clear()
