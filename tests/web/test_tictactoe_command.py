"""`manage.py tictactoe`: computer against computer, printed move by move. No database needed."""

import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine.tictactoe import Mark, Status, parse

ROOT = Path(__file__).resolve().parents[2]
RESULTS = {"X wins", "O wins", "Draw"}
TALLY = re.compile(r"X wins: (\d+), O wins: (\d+), draws: (\d+)")


def run(*args: str) -> str:
    out = StringIO()
    call_command("tictactoe", *args, stdout=out)
    return out.getvalue()


def games_in(output: str) -> list[list[str]]:
    """The lines of each game: move and board lines, ending with the result."""
    games, current = [], []
    for line in output.splitlines():
        if line.startswith("Game ") or not line or TALLY.fullmatch(line):
            continue
        current.append(line)
        if line in RESULTS:
            games.append(current)
            current = []
    assert not current, f"unfinished game: {current}"
    return games


def check_game(lines: list[str]) -> str:
    """Each move line is followed by its board, one mark on from the last; the result fits."""
    *moves, result = lines
    assert len(moves) % 4 == 0
    previous = "." * 9
    state = None
    for index in range(0, len(moves), 4):
        played = re.fullmatch(r"([XO]) plays ([0-8])", moves[index])
        assert played is not None, moves[index]
        mark, square = played[1], int(played[2])
        rows = moves[index + 1 : index + 4]
        state = parse("\n".join(rows))
        assert previous[square] == "."
        assert "".join(rows) == previous[:square] + mark + previous[square + 1 :]
        previous = "".join(rows)
    assert state is not None and state.status is not Status.PLAYING
    assert result == ("Draw" if state.winner is None else f"{state.winner.value} wins")
    return result


def test_one_game_prints_every_board_and_the_result() -> None:
    output = run("--x", "random", "--o", "random", "--seed", "1")
    [game] = games_in(output)
    check_game(game)
    assert game[0].startswith("X plays ")
    assert not TALLY.search(output)


def test_perfect_against_perfect_prints_a_draw() -> None:
    output = run("--x", "perfect", "--o", "perfect", "--seed", "5")
    [game] = games_in(output)
    assert check_game(game) == "Draw"
    assert output.endswith("Draw\n")


def test_the_same_seed_prints_the_same_games() -> None:
    args = ("--x", "random", "--o", "perfect", "--games", "5")
    assert run(*args, "--seed", "42") == run(*args, "--seed", "42")
    assert run(*args, "--seed", "42") != run(*args, "--seed", "43")


def test_several_games_end_with_a_tally_of_their_results() -> None:
    output = run("--x", "random", "--o", "random", "--games", "30", "--seed", "7")
    games = games_in(output)
    assert len(games) == 30
    results = [check_game(game) for game in games]
    assert output.splitlines()[0] == "Game 1 of 30"
    tally = TALLY.fullmatch(output.splitlines()[-1])
    assert tally is not None
    assert tuple(map(int, tally.groups())) == (
        results.count("X wins"),
        results.count("O wins"),
        results.count("Draw"),
    )


def test_perfect_never_loses_to_random() -> None:
    for mark, args in (
        (Mark.X, ("--x", "perfect", "--o", "random")),
        (Mark.O, ("--x", "random", "--o", "perfect")),
    ):
        output = run(*args, "--games", "25", "--seed", "3")
        results = [check_game(game) for game in games_in(output)]
        assert len(results) == 25
        assert f"{mark.other.value} wins" not in results


def test_a_single_game_asked_for_with_games_still_gets_a_tally() -> None:
    output = run("--x", "perfect", "--o", "perfect", "--games", "1", "--seed", "0")
    assert output.splitlines()[-1] == "X wins: 0, O wins: 0, draws: 1"
    assert "Game 1" not in output


BAD_ARGUMENTS = [
    (["--x", "clever", "--o", "random"], "argument --x: invalid choice: 'clever'"),
    (
        ["--x", "random", "--o", "random", "--games", "0"],
        "argument --games: must be at least 1, got 0",
    ),
    (["--x", "random", "--o", "random", "--games", "-3"], "must be at least 1, got -3"),
    (["--x", "random", "--o", "random", "--games", "many"], "must be a whole number, got 'many'"),
    (["--o", "random"], "the following arguments are required: --x"),
    (["--x", "random", "--o", "random", "--seed", "abc"], "argument --seed"),
]


@pytest.mark.parametrize(("args", "message"), BAD_ARGUMENTS)
def test_call_command_refuses_bad_arguments(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        run(*args)


# Each run starts Django in a new process, so two cases stand for the rest.
@pytest.mark.parametrize(("args", "message"), BAD_ARGUMENTS[:2])
def test_bad_arguments_print_usage_and_exit_with_status_2(args: list[str], message: str) -> None:
    completed = subprocess.run(
        [sys.executable, "manage.py", "tictactoe", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith("usage: manage.py tictactoe")
    assert message in completed.stderr
    assert completed.stdout == ""
