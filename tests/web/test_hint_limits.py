"""Hints under hostile load (issue 14): worked out once per game version, at most one a second
per room, a budget per client address, and never on the database thread every socket shares."""

import threading

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.kinds.minesweeper import rules
from games.protocol.messages import CellMove
from games.rooms import dispatch, hints, joining, playing
from games.rooms import hints as rooms_hints
from games.store.models import Room
from tests.helpers.environment import ORIGIN, session_cookie
from tests.helpers.web import (
    SOLVED_SEED,
    TIMEOUT,
    make_room,
    receive_until,
    retry_after,
    seeded,
    send,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def solver_calls(monkeypatch):
    """Every solver run a hint makes, with the name of the thread it ran on."""
    calls: list[str] = []
    real = rules.solver.hint

    def counted(*args, **kwargs):
        calls.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(rules.solver, "hint", counted)
    return calls


def opened(room: Room, address: str = "203.0.113.7"):
    """A seated player's room after its first reveal, so a hint needs the solver."""
    seeded(room, SOLVED_SEED)
    player = joining.join_room(room, "Ana")
    dispatch.play(room, player, CellMove("reveal", 4, 4))
    return player


async def connect_from(room: Room, player, address: str) -> WebsocketCommunicator:
    """A player's socket from `address` (Daphne puts the peer, or X-Forwarded-For's, there)."""
    cookie = await database_sync_to_async(session_cookie)({room.code: player.token})
    headers = [(b"origin", ORIGIN.encode()), (b"cookie", cookie)]
    socket = WebsocketCommunicator(application, f"/ws/r/{room.code}/", headers=headers)
    socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    assert 'id="board"' in await socket.receive_from(timeout=TIMEOUT)
    return socket


def hints_used(room: Room) -> int:
    return Room.objects.get(pk=room.pk).hints_used


def test_a_second_hint_at_the_same_version_runs_no_solver(room, solver_calls):
    player = opened(room)
    first = rooms_hints.ask_hint(room, player)
    second = rooms_hints.ask_hint(room, player)
    assert first.applied.summary == second.applied.summary
    assert len(solver_calls) == 1
    assert hints_used(room) == 2  # both counted and told: only the work is shared
    board = rooms_hints.read_hint_board(room, player)
    dispatch.play(room, player, CellMove("flag", *first.applied.summary["hint"]))  # a new version
    rooms_hints.ask_hint(room, player)
    assert len(solver_calls) == 2
    assert rooms_hints.known_hint(board) == first.applied.summary["hint"]


async def test_a_room_gets_one_hint_a_second_and_the_next_asker_hears_why(room, solver_calls):
    ana = await database_sync_to_async(opened)(room)
    bo = await database_sync_to_async(joining.join_room)(room, "Bo")
    first = await connect_from(room, ana, "198.51.100.1")
    second = await connect_from(room, bo, "198.51.100.2")  # another address: the room's limit
    await send(first, action="hint")
    await receive_until(second, "Ana asked for a hint")
    await send(second, action="hint")
    error = await receive_until(second, 'id="room-error"')
    assert "A hint was just given in this room" in error
    assert await database_sync_to_async(hints_used)(room) == 1
    assert len(solver_calls) == 1
    for socket in (first, second):
        await socket.disconnect()


async def test_an_address_has_a_budget_across_rooms_and_sockets(monkeypatch, solver_calls):
    monkeypatch.setattr(hints, "ADDRESS_BURST", 2)
    hints.reset()  # the budgets take their figures when made
    rooms = [await database_sync_to_async(make_room)() for _ in range(3)]
    players = [await database_sync_to_async(opened)(r) for r in rooms]
    sockets = [await connect_from(r, p, "192.0.2.9") for r, p in zip(rooms, players, strict=True)]
    for socket in sockets[:2]:
        await send(socket, action="hint")
        await receive_until(socket, "Ana asked for a hint")
    await send(sockets[2], action="hint")
    assert "Too many hints from your address" in await receive_until(sockets[2], "room-error")
    assert await database_sync_to_async(hints_used)(rooms[2]) == 0
    other = await connect_from(rooms[2], players[2], "192.0.2.10")  # another address may
    await send(other, action="hint")
    await receive_until(other, "Ana asked for a hint")
    assert len(solver_calls) == 3
    for socket in [*sockets, other]:
        await socket.disconnect()


async def test_the_solver_runs_off_the_database_thread_and_a_full_queue_refuses(room, solver_calls):
    ana = await database_sync_to_async(opened)(room)
    socket = await connect_from(room, ana, "198.51.100.3")
    await send(socket, action="hint")
    await receive_until(socket, "Ana asked for a hint")
    assert [name.startswith("hints") for name in solver_calls] == [True]

    hints.reset()
    hints.LIMITS.waiting = hints.QUEUE  # as if the worker had that many hints to go
    await send(socket, action="hint")
    assert "busy working out hints" in await receive_until(socket, "room-error")
    assert await database_sync_to_async(hints_used)(room) == 1
    await socket.disconnect()


def test_a_move_landing_meanwhile_keeps_the_hint_a_new_game_asks_again(room, ana):
    opened(room)
    board = rooms_hints.read_hint_board(room, ana)
    cell = rooms_hints.work_out_hint(room, board)
    dispatch.play(room, ana, CellMove("flag", *cell))  # mines do not move: still safe
    outcome = rooms_hints.record_hint(room, ana, board, cell)
    assert outcome is not None and outcome.applied.summary == {"hint": cell}
    playing.start_next_game(room, ana)
    assert rooms_hints.record_hint(room, ana, board, cell) is None  # that game is gone
    assert hints_used(room) == 1


def new_api_room(client) -> tuple[str, dict[str, str]]:
    """A beginner room made through the API: its code and its creator's auth header."""
    created = client.post(
        "/api/rooms", {"preset": "beginner", "name": "Robo"}, content_type="application/json"
    )
    return created.json()["code"], {"Authorization": f"Bearer {created.json()['player_token']}"}


def first_reveal(client, code: str, headers: dict[str, str]) -> None:
    """Open the centre of a board that leaves a provable cell (before it a hint is refused)."""
    seeded(Room.objects.get(code=code), SOLVED_SEED)
    first = {"action": "reveal", "x": 4, "y": 4}
    client.post(f"/api/rooms/{code}/moves", first, content_type="application/json", headers=headers)


@pytest.fixture
def api_room(client):
    """A room after its first reveal."""
    code, headers = new_api_room(client)
    first_reveal(client, code, headers)
    return code, headers


def test_the_api_gives_a_room_one_hint_a_second(client, api_room, settings):
    """The API's hints are bounded per room across processes (the shared cache), as the
    sockets' are per process: a second ask within the interval is refused and not counted."""
    settings.HINT_ROOM_SECONDS = 60
    code, headers = api_room
    assert client.post(f"/api/rooms/{code}/hint", headers=headers).status_code == 200
    again = client.post(f"/api/rooms/{code}/hint", headers=headers)
    assert again.status_code == 429 and "just given in this room" in again.json()["error"]
    assert retry_after(again, '"hint-room";q=1', window=60) >= 59
    assert Room.objects.get(code=code).hints_used == 1


def test_a_refused_api_hint_leaves_the_room_free_to_ask_again(client, settings):
    """Before the first reveal a hint is refused: it shows nobody anything, so it neither counts
    nor holds the room's interval."""
    settings.HINT_ROOM_SECONDS = 60
    code, headers = new_api_room(client)
    early = client.post(f"/api/rooms/{code}/hint", headers=headers)
    assert early.status_code == 409 and "first click is always safe" in early.json()["error"]
    first_reveal(client, code, headers)
    assert client.post(f"/api/rooms/{code}/hint", headers=headers).status_code == 200
    assert Room.objects.get(code=code).hints_used == 1


def test_the_api_counts_hints_per_address(client, api_room, settings):
    """A budget per client address and minute; refused asks do not use it up."""
    settings.HINTS_PER_MINUTE = 2
    code, headers = api_room
    mine = "192.0.2.131"  # an address of its own: other tests ask from 127.0.0.1 this minute
    answers = [
        client.post(f"/api/rooms/{code}/hint", headers=headers, REMOTE_ADDR=mine) for _ in range(3)
    ]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert "Too many hints" in answers[2].json()["error"]
    retry_after(answers[2], '"hints";q=2', window=60)
    other = client.post(f"/api/rooms/{code}/hint", headers=headers, REMOTE_ADDR="198.51.100.9")
    assert other.status_code == 200  # another address has its own budget
