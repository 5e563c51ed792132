"""Computer players for Flags: `strong` takes proven mines, bombs when behind, and beats `easy`."""

import random
from dataclasses import replace
from types import MappingProxyType

import pytest

from games.engine.errors import GameOverError
from games.engine.flags import (
    STANDARD,
    Action,
    Config,
    Seat,
    State,
    Status,
    apply_move,
    new_game,
    parse,
)
from games.engine.flags_ai import Strategy, choose_move


def play(seed: int, players: dict[Seat, Strategy]) -> State:
    state, rng = new_game(STANDARD, seed), random.Random(seed)
    while state.status is Status.PLAYING:
        state, _ = apply_move(state, choose_move(state, players[state.turn], rng))
    return state


def test_strong_beats_easy_in_most_games() -> None:
    wins = 0
    for seed in range(20):
        strong = Seat.X if seed % 2 else Seat.O  # each side opens half the games
        players = {strong: Strategy.STRONG, strong.other: Strategy.EASY}
        wins += play(seed, players).winner is strong
    assert wins >= 16


def test_games_between_computers_replay_from_the_seed() -> None:
    players = {Seat.X: Strategy.STRONG, Seat.O: Strategy.STRONG}
    assert play(5, players) == play(5, players)


PROVEN = """
    *1___
    11___
    _____
    __122
    __1**
"""
"""Every hidden cell is a mine the numbers prove; O is to move."""


def test_strong_claims_proven_mines_and_keeps_the_turn() -> None:
    state = parse(PROVEN, turn=Seat.O)
    for seed in range(3):
        move = choose_move(state, Strategy.STRONG, random.Random(seed))
        assert (move.x, move.y) in {(0, 0), (3, 4), (4, 4)}
    rng = random.Random(0)
    while state.status is Status.PLAYING:
        state, _ = apply_move(state, choose_move(state, Strategy.STRONG, rng))
    assert (state.winner, state.scores) == (Seat.O, {Seat.X: 0, Seat.O: 2})


def test_strong_bombs_when_behind_on_a_crowded_board() -> None:
    state = new_game(Config(7, 7, 25), seed=1)
    ahead = MappingProxyType({min(state.field.mines): Seat.X})
    behind = replace(state, claimed=ahead, turn=Seat.O)
    assert choose_move(behind, Strategy.STRONG, random.Random(0)).action is Action.BOMB
    level = replace(state, turn=Seat.X)
    assert choose_move(level, Strategy.STRONG, random.Random(0)).action is Action.REVEAL


def test_easy_never_bombs_and_prefers_cells_next_to_numbers() -> None:
    state = parse(NEAR_NUMBERS, turn=Seat.O)
    assert state.can_bomb(Seat.O)
    for seed in range(10):
        move = choose_move(state, Strategy.EASY, random.Random(seed))
        assert move.action is Action.REVEAL and move.seat is Seat.O
        assert (move.x, move.y) in {(0, 0), (4, 3), (3, 4)}


NEAR_NUMBERS = """
    *1___
    11___
    __122
    __1x*
    __1##
"""
"""X has claimed a mine, so O is behind; (4, 4) is the only hidden cell next to no number."""


def test_no_move_once_the_game_is_over() -> None:
    state = play(1, {Seat.X: Strategy.STRONG, Seat.O: Strategy.EASY})
    with pytest.raises(GameOverError):
        choose_move(state, Strategy.STRONG, random.Random(0))
