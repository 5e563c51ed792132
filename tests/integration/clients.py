"""Clients that behave like the room page, for tests against real server processes.

`HttpSession` gets a seat the way a browser does (GET a page for the csrftoken cookie, POST the
form with csrfmiddlewaretoken, keep the sessionid cookie). `LiveClient` is the room page without
the browser: it keeps a board built from the fragments it receives, checks versions and asks for
a snapshot after a gap exactly as static/games/live.js does, and reconnects after the close codes
htmx reconnects after, with the same capped full-jitter backoff.
"""

import asyncio
import base64
import contextlib
import json
import os
import random
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from http.cookiejar import CookieJar
from typing import Any
from urllib.parse import urlencode

import websockets
from websockets.asyncio.client import ClientConnection

from games.engine import minesweeper as engine

META = re.compile(r'id="game-meta"[^>]*data-game="(\d+)" data-version="(\d+)"')
CELL = re.compile(
    r'id="cell-(\d+)-(\d+)"(?: data-x="\d+" data-y="\d+")? data-state="([a-z-]+)"'  # moves: lean
    r'(?: data-count="(\d)")?'
)
ERROR = re.compile(r'id="room-error"[^>]*><span>(.*?)</span>', re.S)
RETRIED = (1006, 1011, 1012, 1013)
"""Close codes after which htmx's websocket extension reconnects by itself."""
MAX_RECONNECT_SECONDS = 5.0
TIMEOUT = 15

Board = dict[tuple[int, int], tuple[str, int | None]]


class HttpSession:
    """One browser: a cookie jar, forms posted with their CSRF token."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, path: str, form: dict[str, str] | None = None) -> tuple[int, str, str]:
        """(status, body, final url) of a GET, or of a form POST (redirects followed)."""
        data = None
        headers = {"Origin": self.base_url}
        if form is not None:
            data = urlencode({**form, "csrfmiddlewaretoken": self.cookie("csrftoken")}).encode()
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers)
        try:
            with self.opener.open(request, timeout=TIMEOUT) as response:
                return response.status, response.read().decode(), response.url
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace"), error.url

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    @property
    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def create_room(self, nickname: str, preset: str = "beginner") -> str:
        self.request("/")
        status, page, url = self.request(
            "/rooms/",
            {"game": "minesweeper", "nickname": nickname, "preset": preset, "is_public": "on"},
        )
        assert status == 200 and "/r/" in url, (status, page[:500])
        return url.rstrip("/").rsplit("/", 1)[-1]

    def join(self, code: str, nickname: str) -> int:
        """Open the invite link, pick a nickname; returns the seat."""
        status, page, _ = self.request(f"/r/{code}/")
        assert status == 200 and "csrfmiddlewaretoken" in page, status
        status, page, _ = self.request(f"/r/{code}/join/", {"nickname": nickname})
        assert status == 200, (status, page[:500])
        return seat_in(page)

    def seat(self, code: str) -> int:
        status, page, _ = self.request(f"/r/{code}/")
        assert status == 200, status
        return seat_in(page)


def seat_in(page: str) -> int:
    match = re.search(r'class="room ms"[^>]*data-seat="(\d+)"', page)
    assert match, "the room page shows no seat"
    return int(match[1])


def api(
    base_url: str, method: str, path: str, body: object = None, token: str = ""
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base_url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        text = error.read().decode(errors="replace")
        with contextlib.suppress(ValueError):
            return error.code, json.loads(text)
        return error.code, text


def raw_websocket(base_url: str, path: str, source: str = "") -> socket.socket:
    """A websocket opened by hand on a plain socket, for frames no client library sends (a
    flood of pings); `source` an `X-Forwarded-For` address (a server with `--proxy-headers`
    takes it as the client's). Returns once the response's headers are read, nothing more."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    client = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    forwarded = f"X-Forwarded-For: {source}\r\n" if source else ""
    client.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {base_url}\r\n{forwarded}\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        response += client.recv(1)  # one byte at a time: stop right after the headers
    assert response.startswith(b"HTTP/1.1 101"), response
    return client


def reconnect_delay(retries: int) -> float:
    """live.js: htmx's full jitter, capped at 5 s."""
    return random.random() * min(MAX_RECONNECT_SECONDS, 2.0**retries)


class LiveClient:
    """The room page's live half, driven from a test: one socket, reconnecting like htmx."""

    def __init__(self, name: str, ws_url: str, code: str, cookie: str = "") -> None:
        self.name = name
        self.url = f"{ws_url}/ws/r/{code}/" + ("" if cookie else "?watch=1")
        self.origin = ws_url.replace("ws://", "http://", 1)
        self.cookie = cookie
        self.board: Board = {}
        self.game = 0
        self.version = 0
        self.syncing = False
        self.syncs = 0
        self.snapshots = 0
        self.heard: list[tuple[int, int]] = []
        """(game, version) of every move message, in the order it came."""
        self.errors: list[str] = []
        self.closes: list[int] = []
        self.failed_handshakes = 0
        self.socket: ClientConnection | None = None
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    # --- the connection --------------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name=f"client-{self.name}")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.socket is not None:
            await self.socket.close()

    async def run(self) -> None:
        retries = 0
        while True:
            try:
                async with websockets.connect(
                    self.url,
                    origin=self.origin,
                    additional_headers={"Cookie": self.cookie} if self.cookie else {},
                    open_timeout=TIMEOUT,
                    max_size=None,
                ) as socket:
                    self.socket = socket
                    self.syncing = False
                    retries = 0
                    async for message in socket:
                        self.receive(message)
                code = 1000 if socket.close_code is None else socket.close_code
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else 1006
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                self.failed_handshakes += 1
                code = 1006  # what a browser reports for a refused handshake
            self.socket = None
            self.closes.append(code)
            self.changed.set()
            if code not in RETRIED:
                return
            await asyncio.sleep(reconnect_delay(retries))
            retries += 1

    @property
    def connected(self) -> bool:
        return self.socket is not None

    async def send(self, **message: object) -> bool:
        """Like the page: only while connected (htmx would queue it; tests never rely on that)."""
        if self.socket is None:
            return False
        try:
            await self.socket.send(json.dumps(message))
        except websockets.ConnectionClosed:
            return False
        return True

    # --- messages: live.js's version checks, then the swap ------------------------------------

    def receive(self, message: str) -> None:
        if error := ERROR.search(message):
            self.errors.append(error[1])
        meta = META.search(message)
        if meta is not None and 'id="board"' not in message:
            self.heard.append((int(meta[1]), int(meta[2])))
        if meta is not None and self.accept(message, int(meta[1]), int(meta[2])):
            self.swap(message, int(meta[1]), int(meta[2]))
        self.changed.set()

    def accept(self, message: str, game: int, version: int) -> bool:
        if 'id="board"' in message or game > self.game:
            return True
        if game < self.game or version <= self.version:
            return False  # stale: a snapshot already covered it
        if version > self.version + 1:
            if not self.syncing:
                self.syncing = True
                self.syncs += 1
                asyncio.get_running_loop().create_task(self.send(action="sync"))
            return False
        return True

    def swap(self, message: str, game: int, version: int) -> None:
        cells = {
            (int(x), int(y)): (state, int(count) if count else None)
            for x, y, state, count in CELL.findall(message)
        }
        if 'id="board"' in message:
            self.board = cells
            self.snapshots += 1
            self.syncing = False
        else:
            self.board.update(cells)
        self.game, self.version = game, version

    # --- waiting on conditions --------------------------------------------------------------

    async def wait_until(self, condition, timeout: float = TIMEOUT, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: {what or 'condition'} not met in {timeout}s")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def wait_for_version(self, version: int, timeout: float = TIMEOUT) -> None:
        await self.wait_until(
            lambda: self.version >= version,
            timeout,
            f"version {version} (at {self.version}, {self.syncs} syncs)",
        )

    async def wait_connected(self, snapshots: int = 1, timeout: float = TIMEOUT) -> None:
        """Connected, with (at least) this many snapshots received: every connection starts
        with one."""
        await self.wait_until(
            lambda: self.connected and self.snapshots >= snapshots, timeout, "connected"
        )

    async def barrier(self, timeout: float = TIMEOUT) -> None:
        """Send a move off the board and wait for its error, which comes to this socket alone,
        straight back (not through the channel layer). A consumer handles its socket's messages
        in order, so every move this client sent before has been committed (or refused)."""
        answered = len(self.errors)
        assert await self.send(action="reveal", x=-1, y=-1), f"{self.name} is not connected"
        await self.wait_until(lambda: len(self.errors) > answered, timeout, "the barrier")
        probe = self.errors.pop(answered)
        assert "off the board" in probe, probe


@contextlib.asynccontextmanager
async def running(*clients: LiveClient) -> AsyncIterator[None]:
    """Clients connected (each with its first snapshot) for the block, closed after it."""
    for client in clients:
        client.start()
    try:
        await asyncio.gather(*(client.wait_connected() for client in clients))
        yield
    finally:
        await asyncio.gather(*(client.stop() for client in clients))


# --- the stored game -------------------------------------------------------------------------


def public_board(state: dict[str, Any]) -> Board:
    """What every player may see of the stored state, keyed like `LiveClient.board`."""
    game = engine.from_dict(state)
    return {
        (x, y): (shown.value, count if shown is engine.CellState.REVEALED else None)
        for y, row in enumerate(engine.public_board(game))
        for x, (shown, count) in enumerate(row)
    }


def replay(state: dict[str, Any], seed: int, moves: list[tuple]) -> dict[str, Any]:
    """The game rebuilt from its seed and move log, in storable form."""
    config = engine.Config(state["width"], state["height"], state["mines"], state["no_guess"])
    log = [engine.Move(engine.Action(action), x, y, seat) for _, seat, action, x, y in moves]
    return json.loads(json.dumps(engine.to_dict(engine.replay(config, seed, log))))
