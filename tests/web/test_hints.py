"""The Hint button: a provably safe cell for everyone, counted in the room, never a move."""

import itertools
import re

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine import minesweeper as engine
from games.kinds.minesweeper import rules
from games.kinds.table import Invalid, Refused
from games.protocol.messages import CellMove
from games.rooms import dispatch, hints, joining
from games.store.models import Game, Move, Room

from .helpers import (
    SOLVED_SEED,
    before_echo,
    connect,
    fifty_fifty,
    receive_until,
    seeded,
    send,
    settle,
)

pytestmark = pytest.mark.django_db(transaction=True)

GUESS = "No cell can be proved safe: this one is a guess."  # rules.NO_SAFE_CELL, as users read it


def current(room: Room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


def hints_used(room: Room) -> int:
    return Room.objects.get(pk=room.pk).hints_used


def reveal(room, player, x, y):
    return dispatch.play(room, player, CellMove("reveal", x, y))


def set_state(room: Room, state: dict) -> None:
    Game.objects.filter(room=room).update(state=state)


# The hint's proof ------------------------------------------------------------------------------


def consistent_layouts(game: engine.GameState):
    """Every mine layout that fits what the players see: the revealed numbers and the count."""
    grid = game.grid
    hidden = [c for c in range(grid.size) if c not in game.revealed]
    for mines in itertools.combinations(hidden, game.config.mines):
        chosen = set(mines)
        if all(
            sum(n in chosen for n in grid.neighbours(cell)) == game.field.counts[cell]
            for cell in game.revealed
        ):
            yield chosen


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    width=st.integers(3, 5),
    height=st.integers(3, 4),
    density=st.floats(0.1, 0.45),
    seed=st.integers(0, 2**32),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=6),
    flags=st.lists(st.integers(0, 10**6), max_size=3),
)
@pytest.mark.django_db(transaction=False)
def test_a_hint_is_safe_in_every_layout_that_fits_the_board(
    width, height, density, seed, picks, flags
):
    """Brute force on small boards: the hinted cell holds no mine in any layout the public board
    allows, so the hint is proved, not lucky. Random flags (often wrong) change nothing."""
    most = engine.max_mines(width, height)
    assume(most >= 1)
    mines = max(1, min(most, 5, round(density * width * height)))  # brute force stays quick
    game = engine.new_game(engine.Config(width, height, mines), seed)
    with pytest.raises(Refused, match="first click is always safe"):
        rules.hint(engine.to_dict(game))  # before the first reveal every cell is safe
    for pick in picks:
        hidden_safe = [
            c
            for c in range(game.grid.size)
            if c not in game.revealed and (game.field is None or c not in game.field.mines)
        ]
        if game.is_over or not hidden_safe:
            break
        x, y = game.grid.xy(hidden_safe[pick % len(hidden_safe)])
        game, _ = engine.apply_move(game, engine.Move(engine.Action.REVEAL, x, y))
        if game.is_over:
            break
        flagged = game
        for pick_flag in flags:
            hidden = [c for c in range(game.grid.size) if c not in game.revealed]
            fx, fy = game.grid.xy(hidden[pick_flag % len(hidden)])
            flagged, _ = engine.apply_move(flagged, engine.Move(engine.Action.FLAG, fx, fy))
        hint = rules.hint(engine.to_dict(flagged))
        assert hint == rules.hint(engine.to_dict(game))  # flags are not evidence
        if hint is not None:
            cell = game.grid.index(*hint)
            assert cell not in game.revealed
            assert all(cell not in layout for layout in consistent_layouts(game))


def test_no_hint_on_a_fifty_fifty():
    assert rules.hint(fifty_fifty()) is None


# Through the room ------------------------------------------------------------------------------


async def test_a_hint_reaches_everyone_and_counts(room, ana, bo):
    await database_sync_to_async(seeded)(room, SOLVED_SEED)  # a board with a hint after (4, 4)
    await database_sync_to_async(reveal)(room, ana, 4, 4)
    before = await database_sync_to_async(current)(room)
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await settle(*sockets, online=2, watching=1)
    await send(sockets[1], action="hint", HEADERS={"HX-Request": "true"})
    expected = await database_sync_to_async(rules.hint)(before.state)
    assert expected is not None
    x, y = expected
    for socket in sockets:
        message = await receive_until(socket, "asked for a hint")
        assert f"Bo asked for a hint: row {y + 1}, column {x + 1} is safe." in message
        assert re.search(
            rf'id="cell-{x}-{y}"[^>]*data-state="hidden"[^>]*data-hint="true"', message
        )
        assert "Hints used: <strong>1</strong>" in message
        assert 'id="game-meta"' not in message  # not a move: no version of its own
    after = await database_sync_to_async(current)(room)
    assert (after.version, after.state) == (before.version, before.state)
    assert await database_sync_to_async(Move.objects.filter(game=after).count)() == 1
    assert await database_sync_to_async(hints_used)(room) == 1

    # Revealing the hinted cell re-renders it, and the outline is gone.
    await send(sockets[0], action="reveal", x=x, y=y)
    message = await receive_until(sockets[2], 'id="game-meta"')
    assert re.search(rf'id="cell-{x}-{y}"[^>]*data-state="revealed"', message)
    assert "data-hint" not in message
    for socket in sockets:
        await socket.disconnect()


async def test_before_the_first_reveal_a_hint_says_so_to_its_asker_and_is_not_counted(
    room, ana, bo
):
    asker, other = await connect(room, ana), await connect(room, bo)
    await settle(asker, other, online=2)
    await send(asker, action="hint")
    error = await receive_until(asker, 'id="room-error"')
    assert "Your first click is always safe — click anywhere." in error
    assert "data-hint" not in error
    assert await before_echo(other) == []  # nobody else hears of it
    assert await database_sync_to_async(hints_used)(room) == 0
    await send(asker, action="reveal", x=4, y=4)  # after the first reveal hints count again
    await receive_until(asker, 'id="game-meta"')
    await send(asker, action="hint")
    assert "Hints used: <strong>1</strong>" in await receive_until(asker, "asked for a hint")
    late = await connect(room, watch=True)  # the snapshot carries the counter
    await send(late, action="sync")
    assert "Hints used: <strong>1</strong>" in await receive_until(late, 'id="board"')
    for socket in (asker, other, late):
        await socket.disconnect()


def test_a_hint_whose_cell_a_move_opened_meanwhile_is_not_counted(room, ana, bo):
    """The hint is worked out off the database thread; a move landing before it is recorded may
    open its cell. That hint is not shown or counted; under the lock a fresh one is."""
    seeded(room, SOLVED_SEED)
    reveal(room, ana, 4, 4)
    board = hints.read_hint_board(room, ana)
    cell = hints.work_out_hint(room, board)
    assert cell is not None
    reveal(room, bo, *cell)  # Bo opens it first
    assert hints.record_hint(room, ana, board, cell) is None
    assert hints_used(room) == 0
    fresh = hints.ask_hint(room, ana).applied.summary["hint"]
    assert fresh is not None and fresh != cell
    assert hints_used(room) == 1


async def test_when_nothing_is_provable_everyone_hears_it_is_a_guess(room, ana, bo):
    await database_sync_to_async(set_state)(room, fifty_fifty())
    first, second = await connect(room, ana), await connect(room, bo)
    await send(first, action="hint")
    for socket in (first, second):
        message = await receive_until(socket, "asked for a hint")
        assert f"Ana asked for a hint. {GUESS}" in message
        assert "data-hint" not in message
        assert "Hints used: <strong>1</strong>" in message
    assert await database_sync_to_async(hints_used)(room) == 1
    for socket in (first, second):
        await socket.disconnect()


async def test_spectators_and_finished_games_get_no_hint(room, ana):
    spectator = await connect(room, watch=True)
    player = await connect(room, ana)
    await settle(spectator, player, online=1, watching=1)
    await send(spectator, action="hint")
    error = await receive_until(spectator, 'id="room-error"')
    assert "Spectators can watch but not ask for hints" in error
    assert await before_echo(player) == []

    state = await database_sync_to_async(lambda: current(room).state)()
    lost = {**state, "status": "lost", "field": [0], "exploded": [0]}
    await database_sync_to_async(set_state)(room, lost)
    await send(player, action="hint")
    assert "The game is over" in await receive_until(player, 'id="room-error"')
    assert await before_echo(spectator) == []
    assert await database_sync_to_async(hints_used)(room) == 0
    for socket in (spectator, player):
        await socket.disconnect()


def test_hints_are_refused_in_tic_tac_toe():
    room = joining.create_room("tictactoe", {"x": "human", "o": "human"})
    ana = joining.join_room(room, "Ana")
    with pytest.raises(Invalid, match="Hints are for Minesweeper rooms"):
        hints.ask_hint(room, ana)


def test_the_room_page_has_the_hint_button_and_counter(client):
    created = client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"})
    page = client.get(created["Location"]).content.decode()
    assert 'name="action" value="hint"' in page
    assert "Hints used: <strong>0</strong>" in page
    # Fragments are shared by everyone, so spectators get the button too: CSS hides it there.
    watch = client.get(created["Location"] + "watch/").content.decode()
    assert "Hints used: <strong>0</strong>" in watch and "room-page watching" in watch
