"""A server's SQLite log goes back into the database file from a thread of its own, so no move
pays for the checkpoint (`games.store.sqlite_checkpoints`). On SQLite files of the tests' own, so
these run whichever database the suite uses (PostgreSQL in CI)."""

import os
import queue
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.db import DEFAULT_DB_ALIAS
from django.db.utils import ConnectionHandler

from config.settings import SQLITE_WAL_AUTOCHECKPOINT_PAGES, sqlite_database
from games.store import sqlite_checkpoints


@pytest.fixture
def logged_database(tmp_path):
    """A SQLite file in WAL mode with rows still in its log: no checkpoint of its own, and held
    open (the last connection to close would checkpoint)."""
    path = tmp_path / "game.sqlite3"
    database = sqlite3.connect(path)
    database.executescript(
        "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
        "CREATE TABLE moves (id INTEGER PRIMARY KEY, cell INTEGER);"
    )
    with database:
        database.executemany("INSERT INTO moves (cell) VALUES (?)", [(n,) for n in range(500)])
    yield path
    database.close()


def run_checkpoints(path: Path, results) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(
        target=sqlite_checkpoints.checkpoint_every, args=(path, 0.01, stop, results)
    )
    thread.start()
    return thread, stop


@pytest.mark.django_db  # lets the test open a database connection of its own
def test_djangos_sqlite_connections_checkpoint_only_past_the_raised_threshold(tmp_path):
    handler = ConnectionHandler({DEFAULT_DB_ALIAS: sqlite_database(str(tmp_path / "x.sqlite3"))})
    try:
        with handler[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("PRAGMA wal_autocheckpoint")
            (pages,) = cursor.fetchone()
            cursor.execute("PRAGMA journal_mode")
            (mode,) = cursor.fetchone()
    finally:
        handler.close_all()
    assert (pages, mode) == (SQLITE_WAL_AUTOCHECKPOINT_PAGES, "wal")
    assert pages > 1_000  # SQLite's own, which made every 160th move wait for an fsync


def test_the_thread_copies_the_log_back_while_writes_go_on(logged_database):
    results: queue.Queue[sqlite_checkpoints.Result] = queue.Queue()
    thread, stop = run_checkpoints(logged_database, results.put)
    try:
        busy, frames, copied = results.get(timeout=10)
        assert busy == 0 and frames > 0 and copied == frames
        writer = sqlite3.connect(logged_database, timeout=1)
        with writer:  # a write while it runs: PASSIVE checkpoints hold no one up
            writer.execute("INSERT INTO moves (cell) VALUES (1)")
        assert writer.execute("SELECT count(*) FROM moves").fetchone() == (501,)
        writer.close()
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_missing_file_is_never_created_and_is_retried(tmp_path, caplog):
    missing = tmp_path / "not-made-yet.sqlite3"
    rounds: list[sqlite_checkpoints.Result] = []
    thread, stop = run_checkpoints(missing, rounds.append)
    try:
        assert not stop.wait(0.2)  # some rounds, each failing
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not missing.exists() and rounds == []
    assert caplog.text.count("SQLite checkpoint failed") == 1  # said once, not every round


def test_the_thread_ends_when_its_database_is_gone(logged_database, caplog):
    """A test database destroyed under it (issue 34: `make test-fast` ended with "SQLite
    checkpoint failed … unable to open database file")."""
    results: queue.Queue[sqlite_checkpoints.Result] = queue.Queue()
    thread, stop = run_checkpoints(logged_database, results.put)
    try:
        results.get(timeout=10)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{logged_database}{suffix}").unlink(missing_ok=True)
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        stop.set()
        thread.join(timeout=10)
    assert "SQLite checkpoint failed" not in caplog.text


def test_only_a_server_on_sqlite_starts_the_thread_and_only_once(monkeypatch, tmp_path):
    """Under Daphne the reactor runs the thread's start (and its end); the real reactor is in
    `test_a_serving_reactor_runs_the_thread_and_its_shutdown_ends_it`."""
    started, calls = [], []

    class Thread:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

        def start(self):
            started.append(self.kwargs)

    class Reactor:
        def callWhenRunning(self, function, *args):  # noqa: N802 (Twisted's name)
            calls.append((function, args))

    def database(engine: str) -> dict:
        settings = {"ENGINE": engine, "NAME": str(tmp_path / "db.sqlite3")}
        return {DEFAULT_DB_ALIAS: SimpleNamespace(settings_dict=settings)}

    monkeypatch.setattr(sqlite_checkpoints, "_started", threading.Event())
    monkeypatch.setattr(sqlite_checkpoints.threading, "Thread", Thread)
    monkeypatch.setattr(sqlite_checkpoints, "connections", database("django.db.backends.sqlite3"))
    monkeypatch.delitem(sys.modules, "twisted.internet.reactor", raising=False)
    sqlite_checkpoints.start_in_server()  # management commands: no reactor
    assert calls == []
    reactor = Reactor()
    monkeypatch.setitem(sys.modules, "twisted.internet.reactor", reactor)  # imported, not run
    monkeypatch.setattr(
        sqlite_checkpoints, "connections", database("django.db.backends.postgresql")
    )
    sqlite_checkpoints.start_in_server()
    assert calls == []
    monkeypatch.setattr(sqlite_checkpoints, "connections", database("django.db.backends.sqlite3"))
    sqlite_checkpoints.start_in_server()
    sqlite_checkpoints.start_in_server()
    assert started == [] and len(calls) == 1  # nothing until the reactor runs
    assert calls[0][1] == (reactor, tmp_path / "db.sqlite3")


SERVING = """
import sys, threading
import django
django.setup()
from twisted.internet import reactor
from games.store import sqlite_checkpoints
sqlite_checkpoints.INTERVAL_SECONDS = 0.01
sqlite_checkpoints.start_in_server()
print("imported", [t.name for t in threading.enumerate()])
reactor.callLater(0.3, lambda: (print("serving", [t.name for t in threading.enumerate()]), reactor.stop()))
reactor.run()
print("stopped", [t.name for t in threading.enumerate()])
"""


def test_a_serving_reactor_runs_the_thread_and_its_shutdown_ends_it(logged_database):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SQLITE_PATH": str(logged_database),
    }
    env.pop("DATABASE_URL", None)
    ran = subprocess.run(
        [sys.executable, "-c", SERVING], env=env, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    threads = dict(line.split(" ", 1) for line in ran.stdout.splitlines())
    assert "sqlite-checkpoints" not in threads["imported"]  # Twisted imported: not serving
    assert "sqlite-checkpoints" in threads["serving"]
    assert "sqlite-checkpoints" not in threads["stopped"]  # ended with the server
    assert "SQLite checkpoint failed" not in ran.stderr


def test_a_relative_path_is_checkpointed_from_the_working_directory(
    logged_database, monkeypatch, caplog
):
    """SQLITE_PATH=db.sqlite3: a relative file URI raised a ValueError that ended the thread."""
    monkeypatch.chdir(logged_database.parent)
    results: queue.Queue[sqlite_checkpoints.Result] = queue.Queue()
    thread, stop = run_checkpoints(Path(logged_database.name), results.put)
    try:
        busy, frames, copied = results.get(timeout=10)
        assert busy == 0 and frames > 0 and copied == frames
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive() and "SQLite checkpoint failed" not in caplog.text
