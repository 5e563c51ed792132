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
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

INTERVAL_SECONDS = 1.0
STOP_SECONDS = 5.0
"""How long a server's shutdown waits for a checkpoint under way (SQLite's busy timeout)."""

log = logging.getLogger(__name__)

_started = threading.Event()

Result = tuple[int, int, int]
"""SQLite's answer to a checkpoint: (busy, frames in the log, frames copied back)."""


def start_in_server() -> None:
    """The checkpointing thread, once per process, when the process is a server and the
    database is a SQLite file. A server is a process whose Twisted reactor runs (Daphne's): the
    thread starts when the reactor does and ends, its connection closed, before the reactor
    stops. Importing Twisted is not serving: the tests import it with `config.asgi`, and a thread
    started at that import outlived the test database it checkpointed, warning "unable to open
    database file" at the end of every test run (issue 34)."""
    reactor = sys.modules.get("twisted.internet.reactor")  # importing it would install one
    if reactor is None or _started.is_set():
        return
    settings = connections[DEFAULT_DB_ALIAS].settings_dict
    if settings["ENGINE"] != "django.db.backends.sqlite3":
        return
    _started.set()
    reactor.callWhenRunning(_run_while_serving, reactor, Path(settings["NAME"]))


def _run_while_serving(reactor: Any, path: Path) -> None:
    stop = threading.Event()
    thread = threading.Thread(
        target=checkpoint_every,
        args=(path, INTERVAL_SECONDS, stop),
        name="sqlite-checkpoints",
        daemon=True,
    )
    thread.start()

    def end() -> None:
        stop.set()
        thread.join(timeout=STOP_SECONDS)

    reactor.addSystemEventTrigger("before", "shutdown", end)


def checkpoint_every(
    path: Path, seconds: float, stop: threading.Event, done: Callable[[Result], None] | None = None
) -> None:
    """A PASSIVE checkpoint of the database at `path` every `seconds` until `stop` is set or the
    file it opened is gone (deleted, or another file in its place: a test database destroyed);
    `done` hears each one's result."""
    database: sqlite3.Connection | None = None
    opened: tuple[int, int] | None = None
    failing = False
    try:
        while not stop.wait(seconds):
            if opened is not None and _identity(path) != opened:
                log.info("SQLite checkpoints end: %s is gone", path)
                return
            try:
                if database is None:  # mode=rw: never create a file the server has not made
                    database = _open_existing(path)
                    opened = _identity(path)
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


def _open_existing(path: Path) -> sqlite3.Connection:
    """The database at `path`, never created (mode=rw). A relative `path` (SQLITE_PATH=db.sqlite3)
    is taken from the working directory, as Django's connections take it: a file URI has to be
    absolute, and the ValueError it raised for a relative one ended the thread at its first round,
    leaving every checkpoint to the commits."""
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True, timeout=5)


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file `path` names now (device, inode), or None when it names none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino
