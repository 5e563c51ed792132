"""Minesweeper in the terminal:
`manage.py minesweeper WIDTH HEIGHT MINES [--seed N] [--no-guess] [--plain]`.

Prints the board (the engine's text form, one row per line) framed by rulers: column numbers
above, read top-down on wide boards (a 1 over a 2 is column 12), and each row's number at the
left; `--plain` prints the bare rows. Then it reads one command a line: `x, y` reveals,
`f x, y` flags or unflags, `c x, y` chords (0-based, x is the column; `x,y` and `x y` work too).
The board is printed again after every move, with the mines left, until `You win!` or `You lose!`.
Only the pure engine runs: no database, and the seed printed at the start replays the game.
"""

import re
import secrets
import sys
from typing import Any, TextIO

from django.core.management.base import CommandParser

from games.engine.ascii import render
from games.engine.errors import EngineError, InvalidBoardError
from games.engine.minesweeper import Action, Config, GameState, Move, Status, apply_move, new_game
from games.kinds.terminal import TerminalGame, with_rulers

# Nine digits cover any board and keep int() away from its limit on absurdly long numbers.
COMMAND = re.compile(
    r"(?:(?P<action>[fc])\s*)?(?P<x>-?\d{1,9})\s*(?:,\s*|\s+)(?P<y>-?\d{1,9})", re.IGNORECASE
)
ACTIONS = {None: Action.REVEAL, "f": Action.FLAG, "c": Action.CHORD}
USAGE = "WIDTH HEIGHT MINES [--seed N] [--no-guess] [--plain]"
HOW_TO = "use 'x, y' to reveal, 'f x, y' to flag or 'c x, y' to chord"


class UnknownCommand(ValueError):
    """A line at the prompt that is not a move."""


def parse_command(line: str, player: int = 0) -> Move:
    """One line of input as a move; the engine judges the coordinates."""
    match = COMMAND.fullmatch(line.strip())
    if match is None:
        raise UnknownCommand(f"Unknown command {line.strip()!r}: {HOW_TO}")
    action = match["action"].lower() if match["action"] else None
    return Move(ACTIONS[action], int(match["x"]), int(match["y"]), player)


class Command(TerminalGame):
    help = (
        "Play Minesweeper in the terminal. Commands: 'x, y' reveals, 'f x, y' flags, "
        "'c x, y' chords (0-based, x is the column)."
    )
    usage = USAGE

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("width", type=int, metavar="WIDTH", help="columns (1 to 1000)")
        parser.add_argument("height", type=int, metavar="HEIGHT", help="rows (1 to 1000)")
        parser.add_argument("mines", type=int, metavar="MINES", help="mines, at least 1")
        parser.add_argument("--seed", type=int, metavar="N", help="replay the game with seed N")
        parser.add_argument(
            "--no-guess", action="store_true", help="a board solvable by logic from the first click"
        )
        parser.add_argument(
            "--plain", action="store_true", help="bare board rows, without row and column numbers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seed = options["seed"] if options["seed"] is not None else secrets.randbits(32)
        self.plain = options["plain"]
        try:
            config = Config(
                options["width"], options["height"], options["mines"], options["no_guess"]
            )
            state = new_game(config, seed)
        except InvalidBoardError as error:
            self.usage_error(str(error))
        kind = ", no guessing" if config.no_guess else ""
        self.stdout.write(
            f"Minesweeper {config.width}x{config.height}, {config.mines} mines{kind}, "
            f"seed {seed} (replay with --seed {seed})"
        )
        self.show(state)
        stdin: TextIO = options.get("stdin") or sys.stdin
        try:
            self.play(state, stdin)
        except KeyboardInterrupt:
            self.stdout.write("\nInterrupted: game abandoned.")
            sys.exit(130)

    def play(self, state: GameState, stdin: TextIO) -> None:
        prompt = stdin.isatty()  # piped output stays just boards and messages
        while state.status is Status.PLAYING:
            if prompt:
                self.stdout.write("> ", ending="")
                self.stdout.flush()
            line = stdin.readline()
            if not line:
                self.stdout.write("End of input: game abandoned.")
                return
            if not line.strip():
                continue
            try:
                move = parse_command(line)
                state, events = apply_move(state, move)
            except (UnknownCommand, EngineError) as error:
                self.stdout.write(_sentence(str(error)))
                continue
            if not events:
                self.stdout.write(f"Nothing to do at ({move.x}, {move.y}).")
            self.show(state)
        self.stdout.write("You win!" if state.status is Status.WON else "You lose!")

    def show(self, state: GameState) -> None:
        board = render(state)
        self.stdout.write(board if self.plain else with_rulers(board))
        self.stdout.write(f"Mines left: {state.mines_left}")


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:]
