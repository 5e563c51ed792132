"""Minesweeper games won or lost through the API, and the data a replay page carries.

Moved out of tests/web/test_replays.py (issue 34): test modules share helpers from here, never from
each other."""

import json
import re

from games.engine import minesweeper as engine
from games.protocol.messages import CellMove
from games.rooms import dispatch
from games.store.models import Room


def state_of(room: Room) -> engine.GameState:
    return engine.from_dict(room.current_game().state)


def play(room: Room, player, action: str, x: int, y: int) -> None:
    dispatch.play(room, player, CellMove(action, x, y))


def safe_cells(room: Room) -> list[tuple[int, int]]:
    state = state_of(room)
    assert state.field is not None
    return [state.grid.xy(c) for c in range(state.grid.size) if c not in state.field.mines]


def mines(room: Room) -> list[tuple[int, int]]:
    state = state_of(room)
    assert state.field is not None
    return sorted(state.grid.xy(c) for c in state.field.mines)


def win(room: Room, *players) -> None:
    """Reveal every safe cell, the players taking turns; the first reveal places the mines."""
    play(room, players[0], "reveal", 4, 4)
    turn = 1
    for x, y in safe_cells(room):
        state = state_of(room)
        if state.is_over:
            break
        if state.grid.index(x, y) not in state.revealed:
            play(room, players[turn % len(players)], "reveal", x, y)
            turn += 1
    assert room.current_game().status == "won"


def lose(room: Room, player) -> None:
    play(room, player, "reveal", 4, 4)
    if room.current_game().status == "won":  # the first cascade cleared it: no mine to hit
        return
    play(room, player, "reveal", *mines(room)[0])
    assert room.current_game().status == "lost"


def replay_data(html: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found is not None
    return json.loads(found[1])
