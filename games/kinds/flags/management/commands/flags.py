"""Minesweeper Flags in the terminal:
`manage.py flags [--seed N] [--x human|easy|strong] [--o human|easy|strong] [--mines 51] [--plain]`.

Two people at one keyboard (the default), a person against the computer, or two computers. The
16x16 board is printed with rulers as `manage.py minesweeper` prints it (`#` hidden, `_` and
`1`-`8` revealed, `x` / `o` a mine claimed by X / O), then the scores and whose turn it is. A
person types `x, y` to reveal or `b x, y` to bomb (0-based, x is the column); a computer's move
is printed instead. The game ends with the winner and the score, e.g. `X wins 26–12!`.
Only the pure engine runs: no database, and the seed printed at the start replays the board and
the computers' choices.
"""

import random
import re
import secrets
import sys
from typing import Any, TextIO

from django.core.management.base import CommandParser

from games.engine.errors import EngineError, InvalidBoardError
from games.engine.flags import (
    STANDARD,
    Action,
    Config,
    Move,
    Seat,
    State,
    Status,
    apply_move,
    new_game,
    render,
)
from games.engine.flags_ai import Strategy, choose_move
from games.kinds.terminal import TerminalGame, with_rulers

HUMAN = "human"
PLAYERS = [HUMAN, *(strategy.value for strategy in Strategy)]
# Nine digits cover any board and keep int() away from its limit on absurdly long numbers.
COMMAND = re.compile(
    r"(?:(?P<bomb>b)\s*)?(?P<x>-?\d{1,9})\s*(?:,\s*|\s+)(?P<y>-?\d{1,9})", re.IGNORECASE
)
USAGE = "[--seed N] [--x human|easy|strong] [--o human|easy|strong] [--mines 51] [--plain]"
HOW_TO = "use 'x, y' to reveal or 'b x, y' to bomb"


class UnknownCommand(ValueError):
    """A line at the prompt that is not a move."""


def parse_command(line: str, seat: Seat) -> Move:
    """One line of input as `seat`'s move; the engine judges the coordinates."""
    match = COMMAND.fullmatch(line.strip())
    if match is None:
        raise UnknownCommand(f"Unknown command {line.strip()!r}: {HOW_TO}")
    action = Action.BOMB if match["bomb"] else Action.REVEAL
    return Move(action, int(match["x"]), int(match["y"]), seat)


def result_line(state: State) -> str:
    winner = state.winner
    assert winner is not None
    return f"{winner.value} wins {state.score(winner)}–{state.score(winner.other)}!"


class Command(TerminalGame):
    help = (
        "Play Minesweeper Flags in the terminal: 'x, y' reveals, 'b x, y' bombs "
        "(0-based, x is the column). Claim more than half the mines to win."
    )
    usage = USAGE

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, metavar="N", help="replay the game with seed N")
        parser.add_argument("--x", default=HUMAN, choices=PLAYERS, help="who plays X (moves first)")
        parser.add_argument("--o", default=HUMAN, choices=PLAYERS, help="who plays O")
        parser.add_argument(
            "--mines", type=int, default=STANDARD.mines, metavar="N", help="an odd number of mines"
        )
        parser.add_argument(
            "--plain", action="store_true", help="bare board rows, without row and column numbers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seed = options["seed"] if options["seed"] is not None else secrets.randbits(32)
        self.plain = options["plain"]
        self.players = {Seat.X: options["x"], Seat.O: options["o"]}
        try:
            config = Config(STANDARD.width, STANDARD.height, options["mines"])
        except InvalidBoardError as error:
            self.usage_error(str(error))
        state = new_game(config, seed)
        self.stdout.write(
            f"Minesweeper Flags {config.width}x{config.height}, {config.mines} mines "
            f"({config.to_win} to win), X: {options['x']}, O: {options['o']}, "
            f"seed {seed} (replay with --seed {seed})"
        )
        self.show(state)
        stdin: TextIO = options.get("stdin") or sys.stdin
        try:
            self.play(state, stdin, random.Random(seed))
        except KeyboardInterrupt:
            self.stdout.write("\nInterrupted: game abandoned.")
            sys.exit(130)

    def play(self, state: State, stdin: TextIO, rng: random.Random) -> None:
        while state.status is Status.PLAYING:
            player = self.players[state.turn]
            if player == HUMAN:
                move = self.read_move(state.turn, stdin)
                if move is None:
                    self.stdout.write("End of input: game abandoned.")
                    return
            else:
                move = choose_move(state, Strategy(player), rng)
                verb = "bombs" if move.action is Action.BOMB else "reveals"
                self.stdout.write(f"{move.seat.value} ({player}) {verb} {move.x}, {move.y}")
            try:
                state, _ = apply_move(state, move)
            except EngineError as error:
                self.stdout.write(_sentence(str(error)))
                continue
            self.show(state)
        self.stdout.write(result_line(state))

    def read_move(self, seat: Seat, stdin: TextIO) -> Move | None:
        """The next move typed for `seat`, or None at the end of input."""
        prompt = stdin.isatty()  # piped output stays just boards and messages
        while True:
            if prompt:
                self.stdout.write(f"{seat.value}> ", ending="")
                self.stdout.flush()
            line = stdin.readline()
            if not line:
                return None
            if not line.strip():
                continue
            try:
                return parse_command(line, seat)
            except UnknownCommand as error:
                self.stdout.write(str(error))

    def show(self, state: State) -> None:
        board = render(state)
        self.stdout.write(board if self.plain else with_rulers(board))
        scores = f"X {state.score(Seat.X)}, O {state.score(Seat.O)}"
        if state.status is Status.PLAYING:
            bomb = " (may bomb)" if state.can_bomb(state.turn) else ""
            self.stdout.write(f"Score: {scores}. {state.turn.value} to move{bomb}.")
        else:
            self.stdout.write(f"Score: {scores}.")


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:]
