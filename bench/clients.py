"""The load generator's side: browsers joining rooms over HTTP, websockets, valid moves, and the
clock that matches every move to its fragment on every screen.

Everything runs on one asyncio loop. A received frame costs a prefix check and a few `find`s, so
the client stays cheap next to the server it measures (its CPU use is reported with the figures).
"""

import asyncio
import json
import random
import re
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from picows import WSCloseCode, WSError, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

HOST = "127.0.0.1"
META = '<div id="game-meta"'
ERROR = '<div id="room-error"'
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


SOCKETS_PER_SOURCE = 50
"""Sockets a bench gives one forwarded address: each address may hold 200 sockets per process
(`games.protocol.flood.SOCKETS_PER_ADDRESS`), and a crowd comes from many."""


def source(n: int) -> str:
    """The forwarded client address of socket `n` (`Client.source`): 198.18.x.y, the benchmark
    network, `SOCKETS_PER_SOURCE` sockets each."""
    block = n // SOCKETS_PER_SOURCE
    return f"198.18.{block // 250}.{block % 250 + 1}"


@dataclass
class Reply:
    status: int
    cookies: dict[str, str]
    body: str


async def http(
    method: str, port: int, path: str, form: dict[str, str] | None = None, cookies: str = ""
) -> Reply:
    """One HTTP/1.0 request (the server closes after it, so no chunking to undo)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    body = urlencode(form).encode() if form is not None else b""
    head = [f"{method} {path} HTTP/1.0", f"Host: {HOST}:{port}"]
    if cookies:
        head.append(f"Cookie: {cookies}")
    if form is not None:
        head += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    data = await reader.read()
    writer.close()
    raw_head, _, raw_body = data.partition(b"\r\n\r\n")
    lines = raw_head.decode("latin-1").split("\r\n")
    found = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "set-cookie":
            key, _, rest = value.strip().partition("=")
            found[key] = rest.split(";", 1)[0]
    return Reply(int(lines[0].split()[1]), found, raw_body.decode(errors="replace"))


JOIN_RETRIES = {"count": 0}
"""Joins that failed (HTTP 500) and were tried again; reported with the figures."""
CONNECT_RETRIES = {"count": 0}
"""Websocket handshakes the server dropped (Daphne gives up on a handshake after 5 s) and that
were tried again; reported with the figures."""


async def join(port: int, code: str, nickname: str, tries: int = 3) -> str:
    """A browser joining by the invite link: the page, then the nickname form. Returns the
    Cookie header its websocket will send."""
    for attempt in range(tries):
        try:
            return await join_once(port, code, nickname)
        except RuntimeError:
            if attempt == tries - 1:
                raise
            JOIN_RETRIES["count"] += 1
            await asyncio.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable")


async def join_once(port: int, code: str, nickname: str) -> str:
    page = await http("GET", port, f"/r/{code}/")
    token = CSRF_FIELD.search(page.body)
    if page.status != 200 or token is None or "csrftoken" not in page.cookies:
        raise RuntimeError(f"join page for {code}: HTTP {page.status}")
    csrf = f"csrftoken={page.cookies['csrftoken']}"
    form = {"csrfmiddlewaretoken": token.group(1), "nickname": nickname}
    joined = await http("POST", port, f"/r/{code}/join/", form, cookies=csrf)
    if joined.status != 302 or "sessionid" not in joined.cookies:
        raise RuntimeError(f"join form for {code}: HTTP {joined.status}")
    return f"{csrf}; sessionid={joined.cookies['sessionid']}"


async def gather_limited(coros: Iterable, limit: int = 20) -> list:
    """Run coroutines with at most `limit` at once, results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(coro):
        async with gate:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


class Screen(WSListener):
    """One tab's websocket, read as the event loop reads the socket: picows parses each frame in
    C and calls `on_ws_frame` straight from the loop's read, so the clock stops when the bytes
    left the kernel. (With websockets' Python parser and a task per socket, the client spent
    about 0.1 ms per frame, and the last of a room's screens waited for the others' parsing:
    the client's own work, counted as the server's delay; docs/performance.md.)"""

    def __init__(self) -> None:
        self.early: asyncio.Queue[tuple[str, float]] = asyncio.Queue()
        """Messages before `on_message` is set: the snapshot, presence fragments."""
        self.on_message: Callable[[str, float], None] | None = None
        self.parts: list[bytes] = []

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        now = time.perf_counter()
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()
            return
        if frame.msg_type not in (WSMsgType.TEXT, WSMsgType.CONTINUATION):
            return
        if not frame.fin or self.parts:  # a fragmented message (Daphne sends none)
            self.parts.append(frame.get_payload_as_bytes())
            if not frame.fin:
                return
            text, self.parts = b"".join(self.parts).decode(), []
        else:
            text = frame.get_payload_as_utf8_text()
        if self.on_message is None:
            self.early.put_nowait((text, now))
        else:
            self.on_message(text, now)


@dataclass(eq=False)
class Client:
    """One browser tab: a player (with a session cookie) or a spectator."""

    room: int
    code: str
    port: int
    cookie: str = ""
    nickname: str = ""
    transport: WSTransport | None = None
    screen: Screen | None = None
    snapshot_bytes: int = 0
    snapshot_version: int = 0
    received: int = 0
    errors: int = 0
    version: int = 0
    gaps: int = 0
    """Move messages that skipped versions: a browser asks for a snapshot then (live.js)."""
    stale: int = 0
    """Move messages older than one already seen (out of order): a browser drops them."""
    last: str = ""
    source: str = ""
    """An `X-Forwarded-For` address for the handshake: a client behind the production proxy,
    which Daphne's `--proxy-headers` reads as its address (`bench.crowd`)."""

    @property
    def is_player(self) -> bool:
        return bool(self.cookie)

    async def connect(self, tries: int = 3) -> "Client":
        for attempt in range(tries):
            try:
                return await self.connect_once()
            except (OSError, WSError, TimeoutError):
                if attempt == tries - 1:
                    raise
                CONNECT_RETRIES["count"] += 1
                await asyncio.sleep(1.0 * (attempt + 1))
        raise AssertionError("unreachable")

    async def connect_once(self) -> "Client":
        path = f"/ws/r/{self.code}/" + ("" if self.is_player else "?watch=1")
        headers = {"Origin": f"http://{HOST}:{self.port}"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.source:
            headers["X-Forwarded-For"] = self.source
        self.transport, self.screen = await ws_connect(
            Screen,
            f"ws://{HOST}:{self.port}{path}",
            websocket_handshake_timeout=60,
            extra_headers=headers,
            max_frame_size=64 * 2**20,
        )
        snapshot, _ = await asyncio.wait_for(self.screen.early.get(), 60)
        assert 'id="board"' in snapshot, snapshot[:200]
        self.snapshot_bytes = len(snapshot.encode())
        self.snapshot_version = self.version = version_of(snapshot)
        return self

    def listen(self, on_move: Callable[["Client", str, float], None]) -> None:
        """From now on every message goes to `on_move` as it is read (those read meanwhile
        first)."""
        assert self.screen is not None

        def on_message(message: str, now: float) -> None:
            self.received += 1
            if message.startswith(META):
                version = version_of(message)
                if version > self.version + 1:
                    self.gaps += 1
                elif version <= self.version:
                    self.stale += 1
                self.version = max(self.version, version)
                on_move(self, message, now)
            elif message.startswith(ERROR) and "<span>" in message:
                self.errors += 1
                self.last = message

        while not self.screen.early.empty():
            on_message(*self.screen.early.get_nowait())
        self.screen.on_message = on_message

    async def send_json(self, message: dict[str, object]) -> None:
        assert self.transport is not None
        self.transport.send(WSMsgType.TEXT, json.dumps(message).encode())

    async def send(self, action: str, x: int, y: int) -> None:
        assert self.transport is not None
        self.transport.send(WSMsgType.TEXT, json.dumps({"action": action, "x": x, "y": y}).encode())

    async def close(self) -> None:
        if self.transport is None:
            return
        self.transport.send_close(WSCloseCode.OK)
        try:
            await asyncio.wait_for(self.transport.wait_disconnected(), 2)
        except TimeoutError:
            self.transport.disconnect()


async def send_at_pace(
    clients: list[Client], body: bytes, per_second: float, stop: asyncio.Event
) -> int:
    """Every client sends the text `body` `per_second` times a second until `stop`, the clients'
    sends spread evenly over each period; returns how many were sent."""
    sent = 0

    async def one(client: Client, offset: float) -> None:
        nonlocal sent
        await asyncio.sleep(offset)
        while not stop.is_set():
            assert client.transport is not None
            client.transport.send(WSMsgType.TEXT, body)
            sent += 1
            await asyncio.sleep(1 / per_second)

    spread = len(clients) * per_second
    await asyncio.gather(*(one(c, i / spread) for i, c in enumerate(clients)))
    return sent


def version_of(message: str) -> int:
    start = message.find('data-version="') + 14
    return int(message[start : message.find('"', start)])


def first_cell(message: str) -> tuple[int, int] | None:
    start = message.find('id="cell-')
    if start < 0:
        return None
    x, y = message[start + 9 : message.find('"', start + 9)].split("-")
    return int(x), int(y)


def cells_in(message: str) -> int:
    return message.count('id="cell-')


async def connect_all(clients: list[Client], limit: int = 25) -> None:
    await gather_limited((c.connect() for c in clients), limit)


async def close_all(clients: list[Client]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


@dataclass
class Pending:
    sent: float
    waiting: int
    phase: int


class Tracker:
    """Send time of every move in flight, and how many screens still wait for it. A move's
    latency is the time until its fragment reached the last screen of its room."""

    def __init__(self) -> None:
        self.pending: dict[Hashable, Pending] = {}
        self.samples: dict[int, list[float]] = {}
        self.unmatched = 0

    def sent(self, key: Hashable, screens: int, phase: int = 0, at: float | None = None) -> None:
        self.pending[key] = Pending(time.perf_counter() if at is None else at, screens, phase)

    def arrived(self, key: Hashable, now: float) -> None:
        entry = self.pending.get(key)
        if entry is None:
            self.unmatched += 1
            return
        entry.waiting -= 1
        if entry.waiting == 0:
            del self.pending[key]
            self.samples.setdefault(entry.phase, []).append(now - entry.sent)

    def in_flight(self, phase: int | None = None) -> int:
        return sum(1 for p in self.pending.values() if phase is None or p.phase == phase)

    def drop(self, phase: int) -> int:
        """Forget the moves of a phase that never reached every screen; returns how many."""
        lost = [key for key, p in self.pending.items() if p.phase == phase]
        for key in lost:
            del self.pending[key]
        return len(lost)

    async def drain(self, phase: int | None = None, timeout: float = 3.0) -> None:
        deadline = time.perf_counter() + timeout
        while self.in_flight(phase) and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)


@dataclass
class Board:
    """What the load generator knows of one game: where the mines are, what is still hidden.
    It chooses moves that are always valid and never end the game: flag toggles on hidden cells
    and reveals of safe numbered cells (one cell each, no cascade)."""

    width: int
    height: int
    mines: frozenset[int]
    hidden: set[int]
    flags: set[int]
    safe_numbers: list[int] = field(default_factory=list)

    @classmethod
    def from_state(cls, data: dict) -> "Board":
        width, height = data["width"], data["height"]
        mines = frozenset(data["mines"])
        hidden = set(range(width * height)) - set(data["revealed"])
        board = cls(width, height, mines, hidden, set(data["flags"]))
        board.safe_numbers = [
            c for c in hidden if c not in mines and c not in board.flags and board.count(c) > 0
        ]
        random.shuffle(board.safe_numbers)
        # Keep a few safe cells covered so the game is never won by the bench.
        del board.safe_numbers[: min(len(board.safe_numbers), 3)]
        return board

    def count(self, cell: int) -> int:
        x, y = cell % self.width, cell // self.width
        return sum(
            1
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            if (dx or dy)
            and 0 <= x + dx < self.width
            and 0 <= y + dy < self.height
            and (x + dx) + (y + dy) * self.width in self.mines
        )

    def choose(
        self,
        rng: random.Random,
        owner: int = 0,
        owners: int = 1,
        busy: Callable[[int], bool] = lambda cell: False,
        reveal_share: float = 0.2,
    ) -> tuple[str, int, int]:
        """A move on a cell this seat owns (cell % owners == owner) and not already in flight."""
        if rng.random() < reveal_share:
            for index in range(len(self.safe_numbers) - 1, -1, -1):
                cell = self.safe_numbers[index]
                if cell % owners == owner and not busy(cell) and cell not in self.flags:
                    self.safe_numbers.pop(index)
                    self.hidden.discard(cell)
                    return "reveal", cell % self.width, cell // self.width
        for _ in range(50):
            cell = rng.randrange(self.width * self.height)
            if cell % owners == owner and cell in self.hidden and not busy(cell):
                self.flags ^= {cell}
                return "flag", cell % self.width, cell // self.width
        raise RuntimeError("no hidden cell left to flag")


def percentiles(samples: list[float]) -> dict[str, float | int]:
    """p50/p95/p99/max in milliseconds, nearest rank (a value that was actually measured)."""
    if not samples:
        return {"moves": 0}
    ordered = sorted(samples)

    def rank(fraction: float) -> float:
        index = max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))
        return round(ordered[index] * 1e3, 2)

    return {
        "moves": len(ordered),
        "p50_ms": rank(0.50),
        "p95_ms": rank(0.95),
        "p99_ms": rank(0.99),
        "max_ms": round(ordered[-1] * 1e3, 2),
    }
