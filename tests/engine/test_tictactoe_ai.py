"""`perfect` never loses whatever the opponent does; `random` is any legal move."""

import random
from collections.abc import Callable, Iterator
from functools import cache

import pytest

from games.engine.errors import GameOverError
from games.engine.tictactoe import (
    Mark,
    Move,
    State,
    Status,
    apply_move,
    legal_moves,
    new_game,
    parse,
    winning_line,
)
from games.engine.tictactoe_ai import Strategy, best_moves, choose_move

Chooser = Callable[[State], tuple[int, ...]]


def positions(x_moves: Chooser, o_moves: Chooser) -> Iterator[State]:
    """Every position reachable when X picks among `x_moves` and O among `o_moves`.

    Positions are visited once each: whether a side can lose from a position does not depend on
    how play got there, and it keeps the walk to a few thousand positions instead of 9! games.
    """
    seen: set[State] = set()
    stack = [new_game()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        yield state
        choices = x_moves(state) if state.turn is Mark.X else o_moves(state)
        stack.extend(apply_move(state, Move(square, state.turn))[0] for square in choices)


@cache
def reachable() -> tuple[State, ...]:
    """Every position of the game (5,478), walked once per test run."""
    return tuple(positions(legal_moves, legal_moves))


def immediate_wins(state: State) -> set[int]:
    mark = state.turn
    return {
        square
        for square in legal_moves(state)
        if winning_line(state.squares[:square] + (mark,) + state.squares[square + 1 :], mark)
    }


@pytest.mark.parametrize("mark", [Mark.X, Mark.O])
def test_perfect_never_loses_against_any_sequence_of_opponent_moves(mark: Mark) -> None:
    # The perfect side follows every move it might choose; the opponent tries every legal move.
    perfect_side: Chooser = best_moves
    if mark is Mark.X:
        walk = positions(perfect_side, legal_moves)
    else:
        walk = positions(legal_moves, perfect_side)
    finished = [state for state in walk if state.status is not Status.PLAYING]
    assert finished
    assert all(state.winner in (mark, None) for state in finished)


def test_perfect_against_every_opponent_sometimes_wins_and_sometimes_draws() -> None:
    # Guards the walk above against passing vacuously.
    results = {
        state.winner
        for state in positions(best_moves, legal_moves)
        if state.status is not Status.PLAYING
    }
    assert results == {Mark.X, None}


def test_choose_move_with_perfect_only_ever_picks_a_best_move() -> None:
    rng = random.Random(7)
    for state in reachable():
        if state.status is Status.PLAYING:
            assert choose_move(state, Strategy.PERFECT, rng) in best_moves(state)


def test_perfect_against_perfect_always_draws() -> None:
    finished = [
        state for state in positions(best_moves, best_moves) if state.status is not Status.PLAYING
    ]
    assert finished
    assert {state.status for state in finished} == {Status.DRAW}


@pytest.mark.parametrize("seed", range(20))
def test_perfect_against_perfect_draws_for_any_seed(seed: int) -> None:
    rng, state = random.Random(seed), new_game()
    while state.status is Status.PLAYING:
        state, _ = apply_move(state, Move(choose_move(state, Strategy.PERFECT, rng), state.turn))
    assert state.status is Status.DRAW


def test_perfect_takes_an_immediate_win_whenever_there_is_one() -> None:
    checked = 0
    for state in reachable():
        wins = immediate_wins(state) if state.status is Status.PLAYING else set()
        if wins:
            assert set(best_moves(state)) <= wins
            checked += 1
    assert checked > 100


def test_perfect_prefers_the_faster_win() -> None:
    # X wins now at 2; 0, 3 and 4 would also win, but only a move later.
    state = parse("""
        ...
        ..X
        OOX
    """)
    assert best_moves(state) == (2,)
    assert {choose_move(state, Strategy.PERFECT, random.Random(seed)) for seed in range(20)} == {2}


def test_perfect_prefers_the_slower_loss() -> None:
    # O loses whatever it does, but blocking at 2 makes X take longer.
    state = parse("""
        .X.
        ..X
        OOX
    """)
    assert best_moves(state) == (2,)


def test_perfect_answers_a_corner_opening_with_the_centre() -> None:
    assert best_moves(parse("X..\n...\n...")) == (4,)


def test_perfect_varies_its_opening_with_the_rng() -> None:
    # Every opening square draws with best play, so the rng picks among all nine.
    state = new_game()
    assert best_moves(state) == tuple(range(9))
    openings = {choose_move(state, Strategy.PERFECT, random.Random(seed)) for seed in range(100)}
    assert len(openings) > 1


def test_random_picks_legal_moves_and_replays_from_its_seed() -> None:
    state = parse("X..\n.O.\n..X")
    picks = [choose_move(state, Strategy.RANDOM, random.Random(seed)) for seed in range(200)]
    assert set(picks) == set(legal_moves(state))
    again = [choose_move(state, Strategy.RANDOM, random.Random(seed)) for seed in range(200)]
    assert picks == again


@pytest.mark.parametrize("strategy", list(Strategy))
def test_no_move_is_chosen_once_the_game_is_over(strategy: Strategy) -> None:
    with pytest.raises(GameOverError, match=r"game is over \(won\)"):
        choose_move(parse("XXX\nOO.\n..."), strategy, random.Random(0))


def test_strategies_are_named_as_in_the_api() -> None:
    assert [strategy.value for strategy in Strategy] == ["random", "perfect"]
