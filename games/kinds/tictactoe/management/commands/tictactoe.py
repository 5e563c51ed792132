"""Computer against computer: `manage.py tictactoe --x perfect --o random [--games N] [--seed S]`.

Prints the board (the engine's text form) after every move and the result of each game; with
`--games` it ends with the tally. One seeded `random.Random` drives both players through all the
games, so the same seed prints the same output.
"""

import argparse
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.engine.tictactoe import Mark, Move, State, Status, apply_move, new_game, render
from games.engine.tictactoe_ai import Strategy, choose_move

STRATEGIES = [strategy.value for strategy in Strategy]


def positive_int(text: str) -> int:
    """argparse type for `--games`: a bad value becomes a usage error (exit status 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class Command(BaseCommand):
    help = "Play tic-tac-toe computer against computer, printing the board after every move."
    # Only the pure engine runs: no database, so no checks or migrations to wait for.
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--x", required=True, choices=STRATEGIES, help="strategy for X")
        parser.add_argument("--o", required=True, choices=STRATEGIES, help="strategy for O")
        parser.add_argument(
            "--games",
            type=positive_int,
            metavar="N",
            help="number of games (at least 1); ends with a tally",
        )
        parser.add_argument("--seed", type=int, metavar="S", help="seed for the computers' choices")

    def handle(self, *args: Any, **options: Any) -> None:
        players = {Mark.X: Strategy(options["x"]), Mark.O: Strategy(options["o"])}
        rng = random.Random(options["seed"])
        games = options["games"] or 1
        tally = Counter[str]()
        for number in range(1, games + 1):
            if number > 1:
                self.stdout.write("")
            if games > 1:
                self.stdout.write(f"Game {number} of {games}")
            result = self.play_one(players, rng)
            tally[result] += 1
        if options["games"] is not None:
            self.stdout.write(
                f"X wins: {tally['X wins']}, O wins: {tally['O wins']}, draws: {tally['Draw']}"
            )

    def play_one(self, players: dict[Mark, Strategy], rng: random.Random) -> str:
        """Print one game move by move and return its result line."""
        state = new_game()
        for move, state in play(players, rng):
            self.stdout.write(f"{move.mark.value} plays {move.square}")
            self.stdout.write(render(state))
        result = "Draw" if state.winner is None else f"{state.winner.value} wins"
        self.stdout.write(result)
        return result


def play(players: dict[Mark, Strategy], rng: random.Random) -> Iterator[tuple[Move, State]]:
    """One game from the empty board: each move with the position it leads to."""
    state = new_game()
    while state.status is Status.PLAYING:
        move = Move(choose_move(state, players[state.turn], rng), state.turn)
        state, _ = apply_move(state, move)
        yield move, state
