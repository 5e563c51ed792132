"""Helpers for driving real room consumers through Channels' WebsocketCommunicator."""

import json
import re
from types import MappingProxyType

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import services
from games.engine import minesweeper as engine
from games.kinds.minesweeper import rules as minesweeper
from games.models import Game, Player, Room
from tests.conftest import ORIGIN, session_cookie

TIMEOUT = 15  # generous: only a failing test waits this long, and CI machines get busy


def make_room(width: int = 9, height: int = 9, mines: int = 10, **options) -> Room:
    settings = minesweeper.validate_settings(width, height, mines, options.pop("no_guess", False))
    return services.create_room("minesweeper", settings, **options)


async def connect(room: Room, player: Player | None = None, *, watch: bool = False):
    """A connected communicator that has already received its snapshot."""
    path = f"/ws/r/{room.code}/" + ("?watch=1" if watch else "")
    headers = [(b"origin", ORIGIN.encode())]
    if player is not None:
        cookie = await database_sync_to_async(session_cookie)({room.code: player.token})
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await communicator.receive_from(timeout=TIMEOUT)
    assert 'id="board"' in snapshot
    return communicator


async def send(communicator, **message) -> None:
    await communicator.send_to(text_data=json.dumps(message))


async def receive_until(communicator, pattern: str) -> str:
    """The next message matching `pattern`, skipping roster and presence updates."""
    while True:
        message = await communicator.receive_from(timeout=TIMEOUT)
        if re.search(pattern, message):
            return message


async def drain(communicator) -> list[str]:
    """Everything already queued for this socket (presence updates and the like)."""
    messages = []
    while not await communicator.receive_nothing(timeout=0.2):
        messages.append(await communicator.receive_from(timeout=TIMEOUT))
    return messages


def cell_states(html: str) -> dict[tuple[int, int], str]:
    return {
        (int(x), int(y)): state
        for x, y, state in re.findall(
            r'id="cell-(\d+)-(\d+)" data-x="\d+" data-y="\d+" data-state="([a-z-]+)"', html
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
