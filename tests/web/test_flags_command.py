"""`manage.py flags`: the terminal Flags game, driven through stdin and read from stdout.

Expected boards come from the engine itself, replaying the same seed and moves. No database.
"""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine.flags import STANDARD, Action, Move, Seat, apply_move, new_game, render
from games.kinds.flags.management.commands.flags import UnknownCommand, parse_command
from games.kinds.terminal import with_rulers

ROOT = Path(__file__).resolve().parents[2]
USAGE = (
    "usage: manage.py flags [--seed N] [--x human|easy|strong] [--o human|easy|strong] "
    "[--mines 51] [--plain]"
)
SEED = 3


def flags(*args: str, stdin: str = "") -> list[str]:
    out = io.StringIO()
    call_command("flags", *args, stdin=io.StringIO(stdin), stdout=out)
    return out.getvalue().splitlines()


def test_two_people_take_turns_and_see_the_board_with_rulers() -> None:
    state = new_game(STANDARD, SEED)
    mine = min(state.field.mines)
    safe = next(c for c in range(256) if c not in state.field.mines)
    typed = [state.grid.xy(mine), state.grid.xy(safe)]
    lines = flags("--seed", str(SEED), stdin="".join(f"{x}, {y}\n" for x, y in typed))
    assert lines[0].startswith("Minesweeper Flags 16x16, 51 mines (26 to win), X: human, O: human")
    assert lines[1:19] == with_rulers(render(state)).splitlines()
    assert lines[19] == "Score: X 0, O 0. X to move."
    for x, y in typed:
        state, _ = apply_move(state, Move(Action.REVEAL, x, y, state.turn))
    assert "Score: X 1, O 0. X to move." in lines  # the claim kept the turn
    assert lines[-20:-2] == with_rulers(render(state)).splitlines()
    assert lines[-2:] == ["Score: X 1, O 0. O to move (may bomb).", "End of input: game abandoned."]


def test_refused_moves_and_unknown_commands_are_explained() -> None:
    lines = flags("--seed", str(SEED), "--plain", stdin="b 3 3\nzz\n99, 0\n")
    assert (
        "Cannot bomb at (3, 3): X is not behind (0 to 0); the bomb is only for the player behind"
        in lines
    )
    assert "Unknown command 'zz': use 'x, y' to reveal or 'b x, y' to bomb" in lines
    assert any(line.startswith("Cell (99, 0) is off the board") for line in lines)
    assert lines[1:17] == ["#" * 16] * 16


def test_computers_play_to_the_end_and_the_winner_is_announced() -> None:
    lines = flags("--seed", str(SEED), "--x", "strong", "--o", "easy")
    assert lines[-1] == "X wins 26–1!"
    assert any(line.startswith("X (strong) reveals ") for line in lines)
    assert lines == flags("--seed", str(SEED), "--x", "strong", "--o", "easy")  # replays


def test_a_person_against_the_computer() -> None:
    state = new_game(STANDARD, SEED)
    safe = next(c for c in range(256) if c not in state.field.mines)
    x, y = state.grid.xy(safe)
    lines = flags("--seed", str(SEED), "--o", "strong", "--mines", "11", stdin=f"{x}, {y}\n" * 40)
    assert lines[0].startswith("Minesweeper Flags 16x16, 11 mines (6 to win), X: human, O: strong")
    assert any(line.startswith("O (strong) ") for line in lines)
    assert lines[-1].endswith("!") or lines[-1] == "End of input: game abandoned."


@pytest.mark.parametrize(
    ("line", "move"),
    [
        ("3, 4", Move(Action.REVEAL, 3, 4, Seat.X)),
        ("3 4\n", Move(Action.REVEAL, 3, 4, Seat.X)),
        ("b 3, 4", Move(Action.BOMB, 3, 4, Seat.X)),
        ("B3,4", Move(Action.BOMB, 3, 4, Seat.X)),
    ],
)
def test_commands_become_moves(line: str, move: Move) -> None:
    assert parse_command(line, Seat.X) == move


@pytest.mark.parametrize("line", ["", "f 1 2", "1", "b", "1, 2, 3"])
def test_other_lines_are_unknown_commands(line: str) -> None:
    with pytest.raises(UnknownCommand):
        parse_command(line, Seat.O)


def test_an_even_mine_count_is_a_usage_error() -> None:
    with pytest.raises(CommandError, match="odd") as error:
        call_command("flags", "--mines", "50", stdin=io.StringIO(""), stdout=io.StringIO())
    assert error.value.returncode == 2


def test_wrong_arguments_print_usage_and_exit_2() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "manage.py", "flags", "--x", "bogus"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == USAGE
    assert "invalid choice: 'bogus'" in result.stderr
