"""A new game or rematch says who started it, to everyone in the room (issue 13).

The page asks for a confirmation before the smiley restarts a game in progress; the socket and
the API do not (bots and scripts send a bare `{"action": "new_game"}`), so these tests send it
straight and check what the room hears.
"""

import re

import pytest
from channels.db import database_sync_to_async

from games.broadcast import announce
from games.engine import minesweeper as engine
from games.kinds.tictactoe import rules as tictactoe
from games.rooms import autoplay, joining
from games.store.models import Game

from .helpers import SOLVED_SEED, connect, receive_until, seeded, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def stop_computers(monkeypatch):
    """Tic-tac-toe computers answer at once; drivers still running are stopped before the
    test's database goes away."""
    monkeypatch.setattr(autoplay, "PACE", 0.02)
    yield
    await autoplay.stop()


def narration_in(html: str) -> str | None:
    """The live region's text as the fragment sets it, or None when the fragment leaves it be."""
    match = re.search(r'<p id="narration"[^>]*>([^<]*)</p>', html)
    return None if match is None else match[1]


def current_game(room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


async def everyone(room, ana, bo):
    return [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]


async def test_a_new_game_after_the_end_says_who_started_it_to_everyone(room, ana, bo):
    await database_sync_to_async(seeded)(room, SOLVED_SEED)
    sockets = await everyone(room, ana, bo)
    await send(sockets[0], action="reveal", x=4, y=4)
    await receive_until(sockets[0], 'id="game-meta"')
    game = await database_sync_to_async(current_game)(room)
    mine = min(engine.from_dict(game.state).field.mines)
    await send(sockets[0], action="reveal", x=mine % 9, y=mine // 9)
    for socket in sockets:
        await receive_until(socket, 'id="game-meta"[^>]*data-status="lost"')

    await send(sockets[1], action="new_game", game="1")
    for socket in sockets:
        snapshot = await receive_until(socket, 'id="board"')
        assert 'data-game="2"' in snapshot
        assert narration_in(snapshot) == "New game started by Bo."
    # The snapshot a (re)connecting page gets is the board alone: nothing is announced again.
    assert narration_in(await database_sync_to_async(announce.snapshot_for)(room, None)) is None
    for socket in sockets:
        await socket.disconnect()


async def test_restarting_a_game_in_progress_says_who_restarted_it(room, ana, bo):
    await database_sync_to_async(seeded)(room, SOLVED_SEED)
    sockets = await everyone(room, ana, bo)
    await send(sockets[0], action="reveal", x=4, y=4)
    for socket in sockets:
        assert narration_in(await receive_until(socket, 'id="game-meta"')).startswith("Ana")
    # A bare new_game, as bots and the API send it: the confirmation is the page's.
    await send(sockets[1], action="new_game")
    for socket in sockets:
        snapshot = await receive_until(socket, 'id="board"')
        assert 'data-game="2"' in snapshot and 'data-version="0"' in snapshot
        assert narration_in(snapshot) == "Bo restarted the game."
    for socket in sockets:
        await socket.disconnect()


async def test_a_blank_board_replaced_is_a_new_game_not_a_restart(room, ana, bo):
    socket = await connect(room, ana)
    await send(socket, action="new_game", game="1")
    assert narration_in(await receive_until(socket, 'id="board"')) == "New game started by Ana."
    await socket.disconnect()


def tictactoe_room():
    room = joining.create_room("tictactoe", tictactoe.validate_settings("human", "human"))
    return room, joining.join_room(room, "Ana"), joining.join_room(room, "Bo")


async def test_a_rematch_says_who_started_it_and_who_plays_x_now():
    room, ana, bo = await database_sync_to_async(tictactoe_room)()
    first, second, watcher = await everyone(room, ana, bo)
    # Ana (X) takes the top row while Bo (O) plays the middle one.
    for socket, square in [(first, 0), (second, 3), (first, 1), (second, 4), (first, 2)]:
        await send(socket, action="mark", cell=square)
        await receive_until(watcher, 'id="game-meta"')
    await send(second, action="new_game", game="1")
    for socket in (first, second, watcher):
        snapshot = await receive_until(socket, 'id="board"')
        assert 'data-game="2"' in snapshot
        assert narration_in(snapshot) == "Rematch started by Bo: Bo plays X."
    for socket in (first, second, watcher):
        await socket.disconnect()
