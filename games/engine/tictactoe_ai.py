"""Computer players for tic-tac-toe. Randomness comes in as a `random.Random`, so games replay.

`perfect` is negamax over the whole game tree. The tree is small (5,478 reachable positions), so
one memoised search per position is cheaper than any heuristic, and it is exact.
"""

import random
from enum import Enum
from functools import cache

from .errors import GameOverError
from .tictactoe import Mark, Squares, State, Status, legal_moves, winning_line


class Strategy(Enum):
    RANDOM = "random"
    PERFECT = "perfect"


def choose_move(state: State, strategy: Strategy, rng: random.Random) -> int:
    """The square the computer plays for `state.turn`; GameOverError once the game is over."""
    if state.status is not Status.PLAYING:
        raise GameOverError(f"no move to choose: the game is over ({state.status.value})")
    if strategy is Strategy.RANDOM:
        return rng.choice(legal_moves(state))
    return rng.choice(best_moves(state))


def best_moves(state: State) -> tuple[int, ...]:
    """Every square a perfect player may choose: each scores as well as the best.

    Returning them all lets `choose_move` vary its play with the rng while staying perfect, and lets
    tests walk every game a perfect player could play.
    """
    scores = {square: _move_score(state.squares, square) for square in legal_moves(state)}
    if not scores:
        return ()
    best = max(scores.values())
    return tuple(square for square, score in scores.items() if score == best)


def _move_score(squares: Squares, square: int) -> int:
    """The outcome for the mover of playing `square`, with best play after it by both sides.

    A win scores 1 plus the squares still empty, so a faster win scores higher and a slower loss
    (the negation) scores higher than a faster one; a draw scores 0.
    """
    mark = _to_move(squares)
    after = squares[:square] + (mark,) + squares[square + 1 :]
    empty = after.count(None)
    if winning_line(after, mark) is not None:
        return 1 + empty
    if empty == 0:
        return 0
    return -_value(after)


@cache
def _value(squares: Squares) -> int:
    """The best `_move_score` for the side to move (negamax), cached per board."""
    return max(_move_score(squares, square) for square, mark in enumerate(squares) if mark is None)


def _to_move(squares: Squares) -> Mark:
    """X moves first, so X is to move whenever the counts are equal."""
    return Mark.X if squares.count(Mark.X) == squares.count(Mark.O) else Mark.O
