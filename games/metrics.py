"""What one process is doing, for Prometheus: sockets, rooms, moves, sizes, closes, refusals, errors.

One module that every layer may import, and that imports nothing of `games` (a contract in
pyproject.toml). Labels stay few and fixed (a role, a close code, a reason): never a room code or a
socket, so the number of series does not grow with the load. Counting is a lock and an addition
(prometheus-client), cheap enough for every move and message; nothing here runs per socket of a
broadcast. The registry is prometheus-client's default, so each process has its own figures:
docs/operations.md ("Metrics") says how they are scraped, and read.
"""

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

from prometheus_client import Counter, Gauge, Histogram

SOCKETS = Gauge("minesweeper_sockets_open", "Room websockets open in this process", ["role"])
ROOMS = Gauge("minesweeper_rooms_live", "Rooms with at least one socket in this process")
MOVES = Counter("minesweeper_moves", "Moves applied and committed (by people, bots and computers)")
MOVE_BROADCAST = Histogram(
    "minesweeper_move_broadcast_seconds",
    "From a socket's move reaching the service to its fragments being handed to the channel layer",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
SNAPSHOT_BYTES = Histogram(
    "minesweeper_snapshot_bytes",
    "Size of each snapshot rendered (UTF-8 bytes); shared snapshots count once",
    buckets=(1024, 4096, 16384, 65536, 131072, 262144, 524288, 1048576, 2097152),
)
MESSAGE_BYTES = Histogram(
    "minesweeper_message_bytes",
    "Size of each room message this process relays to its sockets (UTF-8 bytes), once per message",
    buckets=(128, 512, 1024, 4096, 16384, 65536, 262144, 1048576),
)
CLOSES = Counter("minesweeper_socket_closes", "Room websockets closed, by close code", ["code"])
REFUSALS = Counter(
    "minesweeper_refusals",
    "Messages refused or sockets cut off, by reason: flood, output, size, hint, malformed, move",
    ["reason"],
)
DATABASE_ERRORS = Counter(
    "minesweeper_database_errors", "Database errors met while serving a room socket"
)
LAYER_ERRORS = Counter(
    "minesweeper_channel_layer_errors", "Channel layer (Redis) errors: sends, receives, joins"
)
WARNINGS = Counter(
    "minesweeper_warnings",
    "Warnings that can come in floods, by event, logged or not (games/log_limit.py)",
    ["event"],
)

_move_received: ContextVar[float | None] = ContextVar("move_received", default=None)


def socket_opened(role: str) -> None:
    SOCKETS.labels(role).inc()


def socket_gone(role: str) -> None:
    SOCKETS.labels(role).dec()


def closed(code: int | None) -> None:
    CLOSES.labels(str(code)).inc()


def refused(reason: str) -> None:
    REFUSALS.labels(reason).inc()


@contextlib.contextmanager
def move_received() -> Iterator[None]:
    """Times the move being played inside: what it announces after its commit, in this context
    (the database thread runs in a copy of it), is measured from here. Reset on the way out, so
    tasks started later (the computer's moves) are not timed from a person's click."""
    token = _move_received.set(time.perf_counter())
    try:
        yield
    finally:
        _move_received.reset(token)


def move_started() -> float | None:
    """When the move being announced reached the service, if it came from a socket."""
    return _move_received.get()


def move_broadcast(started: float) -> None:
    MOVE_BROADCAST.observe(time.perf_counter() - started)


def size_of(html: str) -> int:
    return len(html.encode())
