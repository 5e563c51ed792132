"""`manage.py minesweeper`: the terminal game, driven through stdin and read from stdout.

The expected boards come from the engine itself, replaying the same seed and moves in the test.
No database is involved.
"""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command, execute_from_command_line
from django.core.management.base import CommandError

from games.engine.ascii import render
from games.engine.minesweeper import (
    Action,
    Config,
    GameState,
    Move,
    Status,
    apply_move,
    new_game,
)
from games.kinds.minesweeper.management.commands.minesweeper import UnknownCommand, parse_command
from games.kinds.terminal import with_rulers

ROOT = Path(__file__).resolve().parents[2]
USAGE = "usage: manage.py minesweeper WIDTH HEIGHT MINES [--seed N] [--no-guess] [--plain]"
CONFIG = Config(9, 9, 10)
SEED = 2024


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, "manage.py", "minesweeper", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def play(*args: str, stdin: str = "") -> list[str]:
    """Run a game that must end with exit status 0 and nothing on stderr; its output lines."""
    result = run(*args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


RULER = "  012345678"
"""Column numbers over a 9x9 board, indented past the one-digit row numbers."""


def boards(lines: list[str], config: Config = CONFIG) -> list[str]:
    """Every board printed, each as the engine's text form (rulers checked, then dropped): the
    column ruler, then each row after its row number."""
    assert (config.width, config.height) == (9, 9), "RULER is the 9x9 one"
    row = re.compile(rf"(\d) ([#F*!X_1-8]{{{config.width}}})")
    found = []
    for n, line in enumerate(lines):
        assert not re.fullmatch(r"[#F*!X_1-8]+", line), f"a row without its number: {line!r}"
        if line.removeprefix("> ") != RULER:
            continue
        rows = [row.fullmatch(shown) for shown in lines[n + 1 : n + 1 + config.height]]
        assert all(rows), f"not a whole board after the ruler: {lines[n : n + 10]}"
        assert [int(match[1]) for match in rows if match] == list(range(config.height))
        found.append("\n".join(match[2] for match in rows if match))
    return found


def plain_boards(lines: list[str], config: Config = CONFIG) -> list[str]:
    """Every board printed with --plain: bare rows, as the engine's text form."""
    row = re.compile(rf"[#F*!X_1-8]{{{config.width}}}")
    found, current = [], []
    for line in lines:
        if row.fullmatch(line):
            current.append(line)
            continue
        assert len(current) in (0, config.height), current
        if current:
            found.append("\n".join(current))
        current = []
    assert not current, "output ends in the middle of a board"
    return found


def engine_game(moves: list[Move], config: Config = CONFIG, seed: int = SEED) -> GameState:
    state = new_game(config, seed)
    for move in moves:
        state, _ = apply_move(state, move)
    return state


def typed(move: Move, style: int = 0) -> str:
    """The move as a player types it, in one of the accepted spellings."""
    prefix = {Action.REVEAL: "", Action.FLAG: "f ", Action.CHORD: "c "}[move.action]
    separator = [", ", ",", " ", " , "][style % 4]
    return f"{prefix}{move.x}{separator}{move.y}"


def winning_moves(config: Config = CONFIG, seed: int = SEED) -> list[Move]:
    """The first click in the middle, then every safe cell the game has not opened yet."""
    moves = [Move(Action.REVEAL, config.width // 2, config.height // 2)]
    state = engine_game(moves, config, seed)
    assert state.field is not None
    for cell in range(state.grid.size):
        if state.status is Status.PLAYING and cell not in state.field.mines | state.revealed.keys():
            move = Move(Action.REVEAL, *state.grid.xy(cell))
            state, _ = apply_move(state, move)
            moves.append(move)
    assert state.status is Status.WON
    return moves


# Whole games -----------------------------------------------------------------------------------


def test_revealing_every_safe_cell_wins() -> None:
    moves = winning_moves()
    stdin = "".join(typed(move, n) + "\n" for n, move in enumerate(moves))
    lines = play("9", "9", "10", "--seed", str(SEED), stdin=stdin)
    assert lines[0] == f"Minesweeper 9x9, 10 mines, seed {SEED} (replay with --seed {SEED})"
    shown = boards(lines)
    assert len(shown) == 1 + len(moves)
    assert shown[0] == "\n".join(["#" * 9] * 9)
    assert shown[-1] == render(engine_game(moves))
    assert "*" not in "".join(shown[:-1])
    assert lines[-2:] == ["Mines left: 0", "You win!"]


def test_revealing_a_mine_loses_and_shows_every_mine() -> None:
    first = Move(Action.REVEAL, 4, 4)
    field = engine_game([first]).field
    assert field is not None
    mine = Move(Action.REVEAL, *engine_game([first]).grid.xy(min(field.mines)))
    lines = play("9", "9", "10", "--seed", str(SEED), stdin="4, 4\n" + typed(mine) + "\n")
    assert lines[-1] == "You lose!"
    final = boards(lines)[-1]
    assert final == render(engine_game([first, mine]))
    assert final.count("!") == 1
    assert final.count("*") == 9


def test_flag_and_chord_commands_play_like_the_engine() -> None:
    first = Move(Action.REVEAL, 4, 4)
    state = engine_game([first])
    assert state.field is not None
    # A revealed number with a hidden safe neighbour: flag its mines, then chord it.
    number = next(
        cell
        for cell in sorted(state.revealed)
        if state.field.counts[cell]
        and any(
            n not in state.revealed and n not in state.field.mines
            for n in state.grid.neighbours(cell)
        )
    )
    flags = [
        Move(Action.FLAG, *state.grid.xy(n))
        for n in state.grid.neighbours(number)
        if n in state.field.mines
    ]
    chord = Move(Action.CHORD, *state.grid.xy(number))
    moves = [first, *flags, chord]
    lines = play("9", "9", "10", "--seed", str(SEED), stdin="".join(typed(m) + "\n" for m in moves))
    shown = boards(lines)
    expected = engine_game(moves)
    assert shown[-1] == render(expected)
    assert shown[-1] != shown[-2]  # the chord opened something
    assert shown[-2].count("F") == len(flags)
    assert f"Mines left: {10 - len(flags)}" in lines


def test_flagging_twice_removes_the_flag() -> None:
    lines = play("9", "9", "10", "--seed", "1", stdin="F 0,8\nf 0 8\n")
    shown = boards(lines)
    assert shown[1].splitlines()[8][0] == "F"
    assert shown[2] == shown[0]
    assert lines.count("Mines left: 9") == 1


def test_a_game_replays_from_the_printed_seed() -> None:
    moves = "4, 4\n0, 0\n8, 8\n0, 8\n"
    first = play("9", "9", "10", stdin=moves)
    seed = re.search(r"--seed (\d+)", first[0])
    assert seed is not None
    assert play("9", "9", "10", "--seed", seed[1], stdin=moves) == first


def test_no_guess_boards_come_from_the_engine() -> None:
    config = Config(9, 9, 10, no_guess=True)
    lines = play("9", "9", "10", "--seed", "5", "--no-guess", stdin="4, 4\n")
    assert "no guessing" in lines[0]
    assert boards(lines)[1] == render(engine_game([Move(Action.REVEAL, 4, 4)], config, 5))


# Rulers -----------------------------------------------------------------------------------------


def test_wide_boards_number_each_column_top_down_and_each_row() -> None:
    lines = play("30", "16", "99", "--seed", "1")
    assert lines[1:4] == [
        "   " + " " * 10 + "1" * 10 + "2" * 10,
        "   " + "0123456789" * 3,
        " 0 " + "#" * 30,
    ]
    assert lines[18:20] == ["15 " + "#" * 30, "Mines left: 99"]
    assert lines[1][3 + 12] + lines[2][3 + 12] == "12"


def test_every_column_number_reads_top_down() -> None:
    board = "\n".join(["#" * 101] * 2)
    first, second, third, *rows = with_rulers(board).splitlines()
    assert rows == ["0 " + "#" * 101, "1 " + "#" * 101]
    assert [first[2 + x] + second[2 + x] + third[2 + x] for x in range(101)] == [
        f"{x:>3}" for x in range(101)
    ]


def test_plain_prints_the_bare_rows() -> None:
    lines = play("9", "9", "10", "--seed", str(SEED), "--plain", stdin="4, 4\n")
    assert plain_boards(lines) == [
        render(engine_game([])),
        render(engine_game([Move(Action.REVEAL, 4, 4)])),
    ]
    assert RULER not in lines
    assert lines[1:11] == [*render(engine_game([])).splitlines(), "Mines left: 10"]


# Input that is not a move ----------------------------------------------------------------------


def test_end_of_input_exits_cleanly() -> None:
    lines = play("9", "9", "10", "--seed", "3")
    assert len(boards(lines)) == 1
    assert lines[-1] == "End of input: game abandoned."
    assert not any(line.startswith(">") for line in lines)  # no prompt when stdin is a pipe


def test_bad_commands_are_explained_and_the_game_goes_on() -> None:
    stdin = "xyz\n\nf\n1, 2, 3\nc 4\n9, 0\n-1 3\n4, 4\n"
    lines = play("9", "9", "10", "--seed", str(SEED), stdin=stdin)
    assert lines[12:20] == [
        "Unknown command 'xyz': use 'x, y' to reveal, 'f x, y' to flag or 'c x, y' to chord",
        "Unknown command 'f': use 'x, y' to reveal, 'f x, y' to flag or 'c x, y' to chord",
        "Unknown command '1, 2, 3': use 'x, y' to reveal, 'f x, y' to flag or 'c x, y' to chord",
        "Unknown command 'c 4': use 'x, y' to reveal, 'f x, y' to flag or 'c x, y' to chord",
        "Cell (9, 0) is off the board: x must be 0..8, y must be 0..8",
        "Cell (-1, 3) is off the board: x must be 0..8, y must be 0..8",
        RULER,
        "0 " + render(engine_game([Move(Action.REVEAL, 4, 4)])).splitlines()[0],
    ]
    assert len(boards(lines)) == 2
    assert lines[-1] == "End of input: game abandoned."


def test_a_move_that_changes_nothing_says_so() -> None:
    lines = play("9", "9", "10", "--seed", str(SEED), stdin="f 0, 0\n0, 0\n")
    assert "Nothing to do at (0, 0)." in lines
    assert boards(lines)[2] == boards(lines)[1]


# Wrong arguments -------------------------------------------------------------------------------


BAD_ARGUMENTS = [
    ([], "the following arguments are required: WIDTH, HEIGHT, MINES"),
    (["9", "9"], "the following arguments are required: MINES"),
    (["9", "x", "10"], "argument HEIGHT: invalid int value: 'x'"),
    (["9", "9", "ten"], "argument MINES: invalid int value: 'ten'"),
    (["9", "9", "10", "--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
    (["9", "9", "10", "--bogus"], "unrecognized arguments: --bogus"),
    (["0", "9", "10"], "width must be between 1 and 1000, got 0"),
    (["9", "1001", "10"], "height must be between 1 and 1000, got 1001"),
    (["9", "9", "0"], "takes 1 to 72 mines"),
    (["9", "9", "73"], "takes 1 to 72 mines"),
    (["9", "9", "81"], "mines must be between 0 and 80"),
    (["1", "1", "0"], "a 1x1 board is too small for mines"),
    (["2", "2", "1"], "a 2x2 board is too small for mines"),
]


@pytest.mark.parametrize(
    ("args", "reason"), [BAD_ARGUMENTS[2], BAD_ARGUMENTS[9]], ids=["not-a-number", "too-many-mines"]
)
def test_wrong_arguments_print_usage_and_exit_2(args: list[str], reason: str) -> None:
    result = run(*args, stdin="4, 4\n")
    assert result.returncode == 2
    assert result.stdout == ""
    usage, error = result.stderr.splitlines()
    assert usage == USAGE
    assert error.startswith("manage.py minesweeper: error: ")
    assert reason in error


@pytest.mark.parametrize(("args", "reason"), BAD_ARGUMENTS)
def test_every_wrong_argument_is_a_usage_error(
    args: list[str],
    reason: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same path as the real command line (`manage.py`), without starting a process each."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("4, 4\n"))
    with pytest.raises(SystemExit) as exit_:
        execute_from_command_line(["manage.py", "minesweeper", *args])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[0] == USAGE
    assert reason in err


# The command parser, in process ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "move"),
    [
        ("3, 4", Move(Action.REVEAL, 3, 4)),
        ("3,4\n", Move(Action.REVEAL, 3, 4)),
        ("3 4", Move(Action.REVEAL, 3, 4)),
        ("f 3, 4", Move(Action.FLAG, 3, 4)),
        ("F3,4", Move(Action.FLAG, 3, 4)),
        ("c 0 0", Move(Action.CHORD, 0, 0)),
        ("C 10 , 20", Move(Action.CHORD, 10, 20)),
        ("-1, 2", Move(Action.REVEAL, -1, 2)),
        ("123456789 0", Move(Action.REVEAL, 123456789, 0)),
    ],
)
def test_commands_become_moves(line: str, move: Move) -> None:
    assert parse_command(line) == move


@pytest.mark.parametrize(
    "line", ["", "x", "r 1, 2", "1", "1,", "1, 2, 3", "f", "fc 1 2", "1.5 2", "9" * 5000 + " 1"]
)
def test_other_lines_are_unknown_commands(line: str) -> None:
    with pytest.raises(UnknownCommand, match="Unknown command"):
        parse_command(line)


# In process, through call_command -----------------------------------------------------------


class Keyboard(io.StringIO):
    """Typed input: a terminal, so the game shows its prompt."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_prompt_before_each_command() -> None:
    out = io.StringIO()
    call_command("minesweeper", "9", "9", "10", seed=SEED, stdin=Keyboard("4, 4\n"), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[11] == "Mines left: 10"
    assert lines[12] == "> " + RULER  # after the first board, before the second
    assert lines[-1] == "> End of input: game abandoned."
    assert boards(lines)[1] == render(engine_game([Move(Action.REVEAL, 4, 4)]))


def test_call_command_reports_a_bad_board_with_status_2() -> None:
    with pytest.raises(CommandError, match="too small for mines") as error:
        call_command("minesweeper", "2", "2", "1", stdin=io.StringIO(""), stdout=io.StringIO())
    assert error.value.returncode == 2
