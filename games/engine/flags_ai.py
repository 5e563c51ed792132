"""Computer players for Minesweeper Flags. They see only the public board (revealed counts and
claimed mines, never the layout), and randomness comes in as a `random.Random`, so games replay.

`easy` picks a random hidden cell, preferring cells next to a revealed number (where mines are).
`strong` hunts mines, since a claim keeps the turn: first any cell the solver proves to be a mine,
then the likeliest one by a local estimate; while behind it spends its bomb once a 5x5 square is
expected to hold enough mines to be worth a turn.
"""

import random
from enum import Enum

from .errors import GameOverError
from .flags import Action, Move, State, Status, bomb_area, clues
from .solver import deduce


class Strategy(Enum):
    EASY = "easy"
    STRONG = "strong"


BOMB_WORTH = 3.0
"""Expected mines a bomb must claim before `strong` spends it. A reveal of a likely mine gains
under one mine on average, and the bomb ends the turn, so bombing for one or two would waste it;
waiting for more rarely pays, since the board thins out."""


def choose_move(state: State, strategy: Strategy, rng: random.Random) -> Move:
    """The move the computer makes for `state.turn`; GameOverError once the game is over."""
    if state.status is not Status.PLAYING:
        raise GameOverError(f"no move to choose: the game is over ({state.status.value})")
    if strategy is Strategy.EASY:
        return _easy(state, rng)
    return _strong(state, rng)


def _easy(state: State, rng: random.Random) -> Move:
    grid, counts = state.grid, state.field.counts
    hidden = [cell for cell in range(grid.size) if state.is_hidden(cell)]
    near_numbers = [
        cell
        for cell in hidden
        if any(n in state.revealed and counts[n] for n in grid.neighbours(cell))
    ]
    cell = rng.choice(near_numbers or hidden)
    return Move(Action.REVEAL, *grid.xy(cell), state.turn)


def _strong(state: State, rng: random.Random) -> Move:
    grid = state.grid
    deduction = deduce(grid, clues(state), frozenset(state.claimed), state.config.mines)
    if deduction.mines:  # a sure claim, and the turn stays
        return Move(Action.REVEAL, *grid.xy(rng.choice(sorted(deduction.mines))), state.turn)
    odds = mine_odds(state, deduction.safe)
    if state.can_bomb(state.turn):
        expected = {
            centre: sum(odds.get(cell, 0.0) for cell in bomb_area(grid, centre))
            for centre in range(grid.size)
        }
        most = max(expected.values())
        if most >= BOMB_WORTH:
            best = [centre for centre, value in expected.items() if value == most]
            return Move(Action.BOMB, *grid.xy(rng.choice(best)), state.turn)
    if not odds:  # every hidden cell is proven safe: any reveal will do
        odds = dict.fromkeys((c for c in range(grid.size) if state.is_hidden(c)), 0.0)
    likeliest = max(odds.values())
    best = [cell for cell, value in odds.items() if value == likeliest]
    return Move(Action.REVEAL, *grid.xy(rng.choice(best)), state.turn)


def mine_odds(state: State, safe: frozenset[int]) -> dict[int, float]:
    """An estimate of how likely each hidden cell not proven safe is to be a mine.

    A cell next to revealed numbers takes the highest share among them (a number's mines still
    unclaimed over its neighbours still open to doubt); any other cell takes the density of the
    mines left over the cells left. Exact odds would need every layout of the frontier; this
    local share ranks cells well enough and costs one pass over the board.
    """
    grid, counts = state.grid, state.field.counts
    unknown = [c for c in range(grid.size) if state.is_hidden(c) and c not in safe]
    if not unknown:
        return {}
    doubtful = set(unknown)
    density = (state.config.mines - len(state.claimed)) / len(unknown)
    odds = {}
    for cell in unknown:
        shares = [
            _share(state, number, doubtful)
            for number in grid.neighbours(cell)
            if number in state.revealed and counts[number]
        ]
        odds[cell] = max(shares) if shares else density
    return odds


def _share(state: State, number: int, doubtful: set[int]) -> float:
    around = state.grid.neighbours(number)
    left = state.field.counts[number] - sum(1 for n in around if n in state.claimed)
    open_to_doubt = sum(1 for n in around if n in doubtful)
    return left / open_to_doubt
