"""Helpers for driving real room consumers through Channels' WebsocketCommunicator."""

import json
import re
from types import MappingProxyType
from typing import Any

from autobahn.twisted.websocket import WebSocketServerFactory
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.testing import StringTransport

from config.asgi import application
from games.engine import minesweeper as engine
from games.kinds.minesweeper import rules as minesweeper
from games.rooms import joining
from games.store.models import Game, Player, Room
from tests.helpers.environment import ORIGIN, session_cookie

TIMEOUT = 15  # generous: only a failing test waits this long, and CI machines get busy


def open_socket() -> tuple[WebSocketProtocol, StringTransport]:
    """A Daphne websocket as after its handshake, writing into memory."""
    protocol = WebSocketProtocol()
    protocol.factory = WebSocketServerFactory()
    wire = StringTransport()
    protocol.makeConnection(wire)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.inside_message, protocol.current_frame = False, None  # as the handshake leaves them
    protocol.closeHandshakeTimeout = 0  # no timer left on the reactor
    return protocol, wire


def make_room(width: int = 9, height: int = 9, mines: int = 10, **options) -> Room:
    settings = minesweeper.validate_settings(width, height, mines, options.pop("no_guess", False))
    return joining.create_room("minesweeper", settings, **options)


def current(room: Room) -> Game:
    """The room's newest game, read from the database."""
    return Game.objects.filter(room=room).order_by("-number").first()


def hidden_cells(room: Room) -> list[tuple[int, int]]:
    """(x, y) of every hidden cell of the room's current Minesweeper game."""
    state = engine.from_dict(current(room).state)
    width = state.config.width
    return [
        (cell % width, cell // width)
        for cell in range(state.grid.size)
        if state.cell_state(cell)[0] is engine.CellState.HIDDEN
    ]


async def connect(
    room: Room, player: Player | None = None, *, watch: bool = False, address: str | None = None
):
    """A connected communicator that has already received its snapshot (from `address`, as
    Daphne puts a client's address in the scope; else the communicator's own)."""
    path = f"/ws/r/{room.code}/" + ("?watch=1" if watch else "")
    headers = [(b"origin", ORIGIN.encode())]
    if player is not None:
        cookie = await database_sync_to_async(session_cookie)({room.code: player.token})
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    if address is not None:
        communicator.scope["client"] = (address, 50000)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await communicator.receive_from(timeout=TIMEOUT)
    assert 'id="board"' in snapshot
    communicator.presence = presence_after(snapshot, (0, 0))
    communicator.snapshot = snapshot
    return communicator


async def send(communicator, **message) -> None:
    await communicator.send_to(text_data=json.dumps(message))


async def receive_until(communicator, pattern: str) -> str:
    """The next message matching `pattern`, skipping roster and presence updates."""
    while True:
        message = await communicator.receive_from(timeout=TIMEOUT)
        if re.search(pattern, message):
            return message


SPECTATORS = re.compile(r'class="spectators"[^>]*>(?:<span[^>]*></span>)?(\d+)')


def racer_safe_hidden(race: Any, seat: int) -> list[tuple[int, int]]:
    """A racer's hidden safe cells on its own board (`race`: an `engine.race.Race`)."""
    racer = race.racer(seat)
    assert race.field is not None and racer is not None
    return [
        race.grid.xy(c)
        for c in range(race.grid.size)
        if c not in race.field.mines and c not in racer.board.revealed
    ]


def presence_in(message: str) -> tuple[int, int] | None:
    """(players online, spectators) as a roster update shows them; None for other messages."""
    spectators = SPECTATORS.search(message)
    if 'id="roster"' not in message or 'id="board"' in message or spectators is None:
        return None
    return message.count('data-online="true"'), int(spectators[1])


def spectators_in(message: str) -> int | None:
    """The spectator count of a presence update that carries only that (no roster)."""
    spectators = SPECTATORS.search(message)
    if spectators is None or 'id="roster"' in message:
        return None
    return int(spectators[1])


def presence_after(message: str, before: tuple[int, int]) -> tuple[int, int]:
    """(players online, spectators) on a page after `message`: a roster or a snapshot shows
    both, a spectators-only update the second, anything else neither."""
    spectators = SPECTATORS.search(message)
    if spectators is None:
        return before
    if 'id="roster"' in message:
        return message.count('data-online="true"'), int(spectators[1])
    return before[0], int(spectators[1])


async def settle(*communicators, online: int, watching: int = 0) -> None:
    """Until every socket has heard presence with `online` players and `watching` spectators.

    Each socket's presence reaches the whole room after its snapshot, so sockets opened one after
    another keep hearing presence for a while; waiting for the update that counts them all (counts
    only grow while sockets open) beats waiting for a pause, which a busy machine may fake. Only
    spectators changing sends their count alone, so the page's state is followed from the
    socket's snapshot on (`connect`)."""
    for communicator in communicators:
        counts = getattr(communicator, "presence", (0, 0))
        heard = False
        while not heard or counts != (online, watching):
            message = await communicator.receive_from(timeout=TIMEOUT)
            counts = presence_after(message, counts)
            heard = heard or presence_in(message) is not None or spectators_in(message) is not None
        communicator.presence = counts


async def before_echo(communicator, *, hover: bool = False) -> list[str]:
    """Everything this socket hears before an echo of its own: the snapshot a sync asks for (it
    alone hears that), or with `hover` its player's pointer position, which comes back through
    the room like every room message (and tells a snapshot sent to the wrong socket apart).

    Proves that nothing else arrived, where a pause would only show that nothing arrived for a
    while: a room message owed to this socket, sent before the echo was asked for, is in the list
    (the relay hands a room message to every socket of the process together)."""
    if hover:
        await send(communicator, action="hover", x=0, y=0)
        echo = r'id="cursor-feed"[^>]*data-x="0" data-y="0"'
    else:
        await send(communicator, action="sync")
        echo = 'id="board"'
    heard = []
    while not re.search(echo, message := await communicator.receive_from(timeout=TIMEOUT)):
        heard.append(message)
    return heard


async def two_seats_and_a_watcher(room: Room, ana: Player, bo: Player) -> tuple:
    """Ana's, Bo's and a spectator's sockets, connected and settled."""
    sockets = (await connect(room, ana), await connect(room, bo), await connect(room, watch=True))
    await settle(*sockets, online=2, watching=1)
    return sockets


async def seats_taken_and_watched(room: Room, ana: Player, bo: Player) -> list:
    """A two-sided room's sockets, connected and settled: Ana's and Bo's (seated), Cy's (who
    joins now and has no seat, so is counted with the spectators) and a spectator's."""
    cy = await database_sync_to_async(joining.join_room)(room, "Cy")
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, cy)]
    sockets.append(await connect(room, watch=True))
    await settle(*sockets, online=3, watching=2)
    return sockets


async def refused(sender, others, room: Room, frame: dict, text: str) -> None:
    """`frame` is refused: the sender alone hears why (`text`, a pattern); nothing changes and
    nobody else (`others`) hears anything."""

    def latest() -> Game:
        return Game.objects.filter(room=room).order_by("-number").first()

    before = await database_sync_to_async(latest)()
    await send(sender, **frame)
    error = await receive_until(sender, 'id="room-error"')
    assert re.search(text, error), error
    for other in others:
        assert await before_echo(other) == []
    after = await database_sync_to_async(latest)()
    assert (after.version, after.state) == (before.version, before.state)


def cell_states(html: str) -> dict[tuple[int, int], str]:
    return {
        (int(x), int(y)): state
        for x, y, state in re.findall(
            r'id="cell-(\d+)-(\d+)"(?: data-x="\d+" data-y="\d+")? data-state="([a-z-]+)"', html
        )
    }


def fifty_fifty() -> dict:
    """A 3x2 board whose only mine is at (2, 0) or (2, 1) as far as anyone can tell:

    0 1 #
    0 1 #
    """
    config = engine.Config(3, 2, 1)
    state = engine.GameState(
        config=config,
        seed=1,
        field=engine.Minefield.build(config.grid, [2]),
        revealed=MappingProxyType({0: 0, 1: 0, 3: 0, 4: 0}),
    )
    return engine.to_dict(state)


SOLVED_SEED = 0
"""On a beginner board from this seed, revealing the centre leaves a provably safe cell, and the
Solver bot clears the board by itself from there (eleven moves)."""


def seeded(room: Room, seed: int) -> None:
    """The current game replays this seed (mines are placed at the first reveal from it)."""
    game = room.games.order_by("-number").first()
    state = engine.to_dict(engine.new_game(minesweeper.config(room.settings), seed))
    Game.objects.filter(pk=game.pk).update(seed=seed, state=state)


def records_html(client) -> str:
    """The records page, which must answer."""
    response = client.get("/records/")
    assert response.status_code == 200
    return response.content.decode()


def table(html: str, slug: str) -> str:
    """One board's section of the records page."""
    start = html.index(f'id="{slug}"')
    return html[start : html.index("</section>", start)]


def retry_after(refused, policy: str, window: int) -> int:
    """The seconds a 429 says to wait, having checked it carries `Retry-After` and the RateLimit
    fields as docs/api.md ("Limits") gives them: the limit's `policy` (`"name";q=N`) over
    `window` seconds, nothing remaining, and the same wait."""
    wait = int(refused["Retry-After"])
    assert refused.status_code == 429 and 1 <= wait <= window
    assert refused["RateLimit-Policy"] == f"{policy};w={window}"
    assert refused["RateLimit"] == f"{policy.split(';')[0]};r=0;t={wait}"
    return wait


def signed_in(username: str = "ana_k", password: str = "correct-horse-battery-9"):
    """A browser (a Django test `Client`) signed in to a new account, and its user."""
    from django.test import Client

    from games.players import accounts

    user = accounts.sign_up(username, password)
    browser = Client()
    browser.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return browser, user
