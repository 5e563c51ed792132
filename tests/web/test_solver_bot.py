"""The Solver bot: a computer teammate in co-op Minesweeper that opens only provably safe cells,
from the public board alone, at a person's pace, through the same path as every move."""

import asyncio
import re
import threading

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import minesweeper as engine
from games.engine import solver
from games.kinds.minesweeper import rules
from games.kinds.table import COMPUTER_SEAT, Invalid
from games.protocol.messages import CellMove, Command
from games.rooms import autoplay, computers, dispatch, hints, joining
from games.store.models import Game, Move, Room

from .helpers import (
    SOLVED_SEED,
    before_echo,
    connect,
    make_room,
    receive_until,
    seeded,
    send,
    settle,
)

pytestmark = pytest.mark.django_db(transaction=True)

STUCK_SEED = 11
"""On a beginner board from this seed, after a person opens the centre, the bot opens three
cells and gets stuck; a person revealing (4, 8) gives it the last safe cell to prove."""


@pytest.fixture(autouse=True)
async def quick_bot(monkeypatch):
    """The bot's one-second pace is for people; tests need no drama. Drivers still running when a
    test ends are stopped before its database goes away."""
    monkeypatch.setattr(autoplay, "PACE", 0.01)
    yield
    await autoplay.stop()


def current(room: Room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


def public_hint(state: dict) -> int | None:
    """`solver.hint` on what the players see: revealed numbers and the mine count."""
    game = engine.from_dict(state)
    clues = {cell: game.field.counts[cell] for cell in game.revealed}
    return solver.hint(game.grid, clues, frozenset(), game.config.mines)


# The bot's choices ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    size=st.sampled_from([(9, 9, 10), (8, 8, 12), (16, 16, 40), (12, 6, 14)]),
    seed=st.integers(0, 2**32),
)
@pytest.mark.django_db(transaction=False)
def test_the_bot_plays_solver_hint_on_the_public_board_and_never_loses(size, seed):
    width, height, mines = size
    params = {"width": width, "height": height, "mines": mines, "bot": True}
    state = rules.initial_state(params, seed)
    assert rules.computer_move(state, params, seed, 0) is None  # the first click is a person's
    state = opened_by_a_person(state, width // 2, height // 2)
    moves = 0
    while (chosen := rules.computer_move(state, params, seed, moves)) is not None:
        message, applied = chosen
        grid = engine.from_dict(state).grid
        assert grid.index(message.x, message.y) == public_hint(state)
        assert message.action == "reveal" and applied.status != "lost"
        state, moves = applied.state, moves + 1
        if applied.summary["stuck"]:
            assert rules.computer_to_move(state, params) is None
    game = engine.from_dict(state)
    assert set(game.revealed.values()) <= {PERSON, COMPUTER_SEAT}
    assert game.status is engine.Status.WON or rules.bot_cell(game) is None


PERSON = 0


def opened_by_a_person(state: dict, x: int, y: int) -> dict:
    return rules.apply(state, CellMove("reveal", x, y), PERSON).state


def test_before_the_first_reveal_the_bot_does_nothing_even_after_flags():
    params = {"width": 9, "height": 9, "mines": 10, "bot": True}
    state = rules.initial_state(params, STUCK_SEED)
    assert rules.computer_to_move(state, params) is None
    flagged = rules.apply(state, CellMove("flag", 0, 0), PERSON).state
    assert engine.from_dict(flagged).field is None  # flags place no mines
    assert rules.computer_to_move(flagged, params) is None
    assert rules.computer_move(flagged, params, STUCK_SEED, 1) is None
    assert rules.computer_to_move(opened_by_a_person(flagged, 4, 4), params) is not None


def test_the_bot_waits_without_the_flag_on_a_proven_safe_cell():
    params = {"width": 9, "height": 9, "mines": 10, "bot": True}
    state = opened_by_a_person(rules.initial_state(params, STUCK_SEED), 4, 4)
    _, applied = rules.computer_move(state, params, STUCK_SEED, 1)
    game = engine.from_dict(applied.state)
    first = rules.bot_cell(game)
    assert first is not None
    x, y = game.grid.xy(first)
    flagged, _ = engine.apply_move(game, engine.Move(engine.Action.FLAG, x, y))  # a wrong flag
    assert rules.bot_cell(flagged) != first
    assert rules.computer_to_move(applied.state, {**params, "bot": False}) is None


# Who may seat it --------------------------------------------------------------------------------


@pytest.fixture
def room():
    return make_room()


@pytest.fixture
def host(room):
    return joining.join_room(room, "Ana")


@pytest.fixture
def guest(room, host):
    return joining.join_room(room, "Bo")


async def test_only_the_host_adds_and_removes_the_bot_and_everyone_sees_it(room, host, guest):
    await database_sync_to_async(seeded)(room, STUCK_SEED)
    await database_sync_to_async(dispatch.play)(room, host, CellMove("reveal", 0, 0))
    ana, bo, spectator = (
        await connect(room, host),
        await connect(room, guest),
        await connect(room, watch=True),
    )
    everyone = (ana, bo, spectator)
    await settle(*everyone, online=2, watching=1)

    for socket, text in ((bo, "Only the host"), (spectator, "Spectators can watch")):
        await send(socket, action="add_bot")
        assert text in await receive_until(socket, 'id="room-error"')
        for other in everyone:
            if other is not socket:
                assert await before_echo(other) == []
    assert not await database_sync_to_async(lambda: current(room).params.get("bot"))()

    await send(ana, action="add_bot")
    for socket in everyone:
        message = await receive_until(socket, "added the Solver bot")
        assert "Ana added the Solver bot." in message
        assert re.search(r'data-seat="bot".*Solver bot', message, re.S)
        assert 'value="remove_bot"' in message
    fresh = await database_sync_to_async(Room.objects.get)(pk=room.pk)
    assert fresh.settings["bot"] is True
    assert (await database_sync_to_async(current)(room)).params["bot"] is True

    await send(ana, action="remove_bot")
    for socket in everyone:
        message = await receive_until(socket, "removed the Solver bot")
        assert "Ana removed the Solver bot." in message
        assert 'data-seat="bot"' not in message and 'value="add_bot"' in message
    fresh = await database_sync_to_async(Room.objects.get)(pk=room.pk)
    assert fresh.settings["bot"] is False
    for socket in everyone:
        await socket.disconnect()


def test_new_games_keep_the_bot_and_tic_tac_toe_has_none(room, host, guest):
    dispatch.play(room, host, Command("add_bot"))
    dispatch.play(room, guest, Command("new_game", game=1))  # a stale room object is fine
    assert current(room).number == 2 and current(room).params["bot"] is True
    tictactoe = joining.create_room("tictactoe", {"x": "human", "o": "human"})
    ana = joining.join_room(tictactoe, "Ana")
    with pytest.raises(Invalid, match="Minesweeper rooms only"):
        computers.set_bot(tictactoe, ana, True)


def test_the_bot_waits_for_a_persons_first_reveal_in_every_game(room, host):
    seeded(room, STUCK_SEED)
    computers.set_bot(room, host, True)
    assert computers.computer_turn(room) is None
    dispatch.play(room, host, CellMove("flag", 0, 0))
    assert computers.computer_turn(room) is None  # a flag is not a first reveal
    dispatch.play(room, host, CellMove("reveal", 4, 4))
    assert computers.computer_turn(room) == (1, 2)
    dispatch.play(room, host, Command("new_game", game=1))
    assert computers.computer_turn(room) is None  # game 2 waits for its own first reveal


def test_the_bot_moves_once_per_version_and_never_through_the_api_helper(room, host):
    seeded(room, STUCK_SEED)
    computers.set_bot(room, host, True)
    dispatch.play(room, host, CellMove("reveal", 4, 4))
    assert computers.computer_turn(room) == (1, 1)
    assert computers.play_computer_turns(room) == []  # Minesweeper's bot plays only live
    assert computers.computer_move(room, 3) is None  # a stale version: another driver moved
    assert computers.computer_move(room, 1, game=2) is None
    assert computers.computer_move(room, 1, game=1) is not None
    assert computers.computer_move(room, 1, game=1) is None  # a second driver: already played
    move = Move.objects.get(game=current(room), seq=2)
    assert (move.player, move.seat, move.action) == (None, COMPUTER_SEAT, "reveal")


def test_the_bot_leaves_the_cell_hinted_to_a_person_for_them(room, host):
    """A person asks for a hint to open that cell: the bot opening it first wastes the hint."""
    seeded(room, SOLVED_SEED)
    computers.set_bot(room, host, True)
    dispatch.play(room, host, CellMove("reveal", 4, 4))
    hinted = hints.ask_hint(room, host).applied.summary["hint"]
    game = current(room)
    hinted_cell = engine.from_dict(game.state).grid.index(*hinted)
    assert public_hint(game.state) == hinted_cell  # the bot's first pick, but for the hint
    outcome = computers.computer_move(room, game.version)
    assert outcome is not None
    bot_opened = outcome.applied.loaded(engine.from_dict).revealed
    assert hinted_cell not in bot_opened
    dispatch.play(room, host, CellMove("reveal", *hinted))  # the person opens it
    assert computers.computer_turn(room) is not None  # and the bot carries on


# Playing live -----------------------------------------------------------------------------------


async def test_a_seated_bot_plays_no_move_before_a_persons_first_reveal(room, host):
    """Seated in a fresh game with people connected, the bot waits: its driver looks, finds
    nothing due, and stops (`autoplay.idle`); the version stays 0 until a person moves."""
    await database_sync_to_async(seeded)(room, STUCK_SEED)
    ana, spectator = await connect(room, host), await connect(room, watch=True)
    await send(ana, action="add_bot")
    added = await receive_until(spectator, "added the Solver bot")
    assert "Solver bot joins in after the first reveal." in added
    assert 'data-seat="bot" data-doing="waiting"' in added
    await autoplay.idle(room)
    await send(ana, action="flag", x=0, y=0)  # a flag is not the first reveal: still nothing
    await receive_until(spectator, 'data-version="1"')
    await autoplay.idle(room)
    assert not [m for m in await before_echo(spectator) if 'id="game-meta"' in m]
    game = await database_sync_to_async(current)(room)
    assert game.version == 1
    assert not await database_sync_to_async(Move.objects.filter(seat=COMPUTER_SEAT).exists)()
    await send(ana, action="reveal", x=4, y=4)
    assert 'data-version="3"' in await receive_until(spectator, "Solver bot revealed")
    for socket in (ana, spectator):
        await socket.disconnect()


async def test_the_bot_stops_when_it_would_guess_and_resumes_after_progress(room, host):
    await database_sync_to_async(seeded)(room, STUCK_SEED)
    ana, spectator = await connect(room, host), await connect(room, watch=True)
    await send(ana, action="add_bot")
    await receive_until(spectator, "added the Solver bot")
    await send(ana, action="reveal", x=4, y=4)
    message = await receive_until(spectator, "Solver bot is stuck: a guess is needed.")
    assert re.search(r"Solver bot revealed \d+ cells?\. Solver bot is stuck", message)
    assert re.search(r'data-seat="bot" data-doing="stuck"', message)
    game = await database_sync_to_async(current)(room)
    moves = await database_sync_to_async(list)(Move.objects.filter(game=game).order_by("seq"))
    assert len(moves) == 4 and game.version == 4
    assert (moves[0].player_id, moves[0].seat) == (host.pk, host.number)
    assert all((m.player_id, m.seat) == (None, COMPUTER_SEAT) for m in moves[1:])
    revealed = engine.from_dict(game.state).revealed
    share = sum(1 for seat in revealed.values() if seat == COMPUTER_SEAT)
    assert re.search(rf'data-seat="bot".*?class="share"[^>]*>{share}<', message, re.S)

    # Nothing is provable, so the bot sits still until a person makes progress.
    assert not [m for m in await before_echo(spectator) if 'id="game-meta"' in m]
    await send(ana, action="reveal", x=4, y=8)
    await receive_until(spectator, "Ana revealed")
    message = await receive_until(spectator, "Solver bot (revealed|cleared)")
    assert 'data-version="6"' in message  # (here its one move wins the game)
    move = await database_sync_to_async(Move.objects.get)(game=game, seq=6)
    assert (move.player_id, move.seat) == (None, COMPUTER_SEAT)
    for socket in (ana, spectator):
        await socket.disconnect()


async def test_the_bot_can_clear_a_board_and_takes_its_share(room, host):
    await database_sync_to_async(seeded)(room, SOLVED_SEED)
    ana = await connect(room, host)
    await send(ana, action="add_bot")
    await send(ana, action="reveal", x=4, y=4)
    message = await receive_until(ana, "Solver bot cleared the board. The players won!")
    split = re.search(r'class="shares".*?</ul>', message, re.S)[0]
    shares = {name.strip(): int(n) for name, n in re.findall(r"([^>]+) <strong>(\d+)%", split)}
    # Ana's first reveal floods most of the board; the bot proves and opens the rest.
    assert shares["Ana"] > 0 and shares["Solver bot"] > 0
    assert shares["Ana"] + shares["Solver bot"] in (99, 100, 101)  # rounded percentages
    game = await database_sync_to_async(current)(room)
    assert game.status == "won"
    await ana.disconnect()


async def test_an_api_move_wakes_the_bot_on_the_servers_event_loop(room, host, async_client):
    """The API has no socket to schedule from: its request thread hands the driver to the event
    loop it serves (here the test's), and the bot plays live as through a socket."""
    await database_sync_to_async(seeded)(room, SOLVED_SEED)
    spectator = await connect(room, watch=True)  # before the bot: connecting wakes nothing
    answer = await async_client.post(
        f"/api/rooms/{room.code}/moves",
        {"action": "add_bot"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {host.token}"},
    )
    assert answer.status_code == 200 and answer.json()["version"] == 0
    answer = await async_client.post(
        f"/api/rooms/{room.code}/moves",
        {"action": "reveal", "x": 4, "y": 4},
        content_type="application/json",
        headers={"Authorization": f"Bearer {host.token}"},
    )
    assert answer.status_code == 200 and answer.json()["version"] == 1
    assert "Solver bot revealed" in await receive_until(spectator, "Solver bot revealed")
    await spectator.disconnect()


async def test_stopping_the_drivers_waits_for_the_move_in_flight(room, host, monkeypatch):
    """A cancelled driver's database thread runs on; `stop` must not return while it holds the
    transaction, or whatever comes next (a shutdown, a test's flush) runs into its locks."""
    await database_sync_to_async(seeded)(room, SOLVED_SEED)
    entered, release, finished = threading.Event(), threading.Event(), []
    real_move = computers.computer_move

    def held_move(*args, **kwargs):
        entered.set()
        release.wait(timeout=10)
        finished.append(real_move(*args, **kwargs))
        return finished[-1]

    monkeypatch.setattr(computers, "computer_move", held_move)
    await database_sync_to_async(computers.set_bot)(room, host, True)
    await database_sync_to_async(dispatch.play)(room, host, CellMove("reveal", 4, 4))
    autoplay.schedule(room)
    assert await asyncio.to_thread(entered.wait, 10), "the driver never started its move"
    threading.Timer(0.2, release.set).start()  # the move ends only after `stop` was asked
    await autoplay.stop()
    assert len(finished) == 1 and finished[0] is not None
    assert await database_sync_to_async(Move.objects.filter(game__room=room).count)() == 2
