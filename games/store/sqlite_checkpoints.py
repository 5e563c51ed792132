"""SQLite's WAL checkpoints on a thread of their own, off the moves' path.

In WAL mode SQLite copies its log back into the database file once the log passes
`wal_autocheckpoint` pages (1,000 by default), inside the commit that crossed the line, with an
fsync. At a few pages a move, one move in about 160 paid for it: 3-5 ms in a loop, about 10 ms
on a cold path, which was the embedded shape's p99 (docs/performance.md, issue 17 round three).
SQLite's documentation offers the way out used here: a server process checkpoints from a thread
and a connection of its own, every `INTERVAL_SECONDS`, in PASSIVE mode (it waits for no reader
or writer, and copies what no reader still needs). The connections' own threshold is raised to
`SQLITE_WAL_AUTOCHECKPOINT_PAGES` (config/settings.py), a bound on the log for processes without
the thread (management commands, tests) and for a thread that falls behind.
"""

import logging
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from django.db import DEFAULT_DB_ALIAS, connections

INTERVAL_SECONDS = 1.0

log = logging.getLogger(__name__)

_started = threading.Event()

Result = tuple[int, int, int]
"""SQLite's answer to a checkpoint: (busy, frames in the log, frames copied back)."""


def start_in_server() -> None:
    """The checkpointing thread, once per process, when the process is a server (Daphne's
    reactor is running it) and the database is a SQLite file."""
    if "twisted.internet.reactor" not in sys.modules or _started.is_set():
        return
    settings = connections[DEFAULT_DB_ALIAS].settings_dict
    if settings["ENGINE"] != "django.db.backends.sqlite3":
        return
    _started.set()
    args = (Path(settings["NAME"]), INTERVAL_SECONDS, threading.Event())
    threading.Thread(
        target=checkpoint_every, args=args, name="sqlite-checkpoints", daemon=True
    ).start()


def checkpoint_every(
    path: Path, seconds: float, stop: threading.Event, done: Callable[[Result], None] | None = None
) -> None:
    """A PASSIVE checkpoint of the database at `path` every `seconds` until `stop` is set;
    `done` hears each one's result."""
    database: sqlite3.Connection | None = None
    failing = False
    try:
        while not stop.wait(seconds):
            try:
                if database is None:  # mode=rw: never create a file the server has not made
                    database = sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=5)
                result = database.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as error:  # locked, or not there yet: the next round tries again
                if not failing:
                    log.warning("SQLite checkpoint failed, retrying every %s s: %s", seconds, error)
                failing = True
                continue
            failing = False
            if done is not None:
                done(tuple(result))
    finally:
        if database is not None:
            database.close()
