"""The Makefile's newcomer paths: `make play` and the first install's notice (dry runs, `make -n`,
except one real game when .venv is already installed)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTICE = "Installing dependencies into .venv (first run takes a minute or two)…"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_play_runs_the_terminal_game_through_the_venv() -> None:
    done = make("-n", "play", "ARGS=16 16 40 --seed 3")
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.splitlines()[-1] == ".venv/bin/python manage.py minesweeper 16 16 40 --seed 3"
    )


def test_make_play_without_args_is_a_beginner_board() -> None:
    done = make("-n", "play")
    assert done.stdout.splitlines()[-1] == ".venv/bin/python manage.py minesweeper 9 9 10"


def test_make_play_plays() -> None:
    if make("-q", ".venv/.installed").returncode != 0:
        pytest.skip(".venv is not installed: `make play` would install it first")
    done = make("-s", "play", "ARGS=9 9 10 --seed 3 --plain", stdin="4, 4\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Minesweeper 9x9, 10 mines, seed 3 (replay with --seed 3)"
    assert lines[-1] == "End of input: game abandoned."


def test_the_install_says_what_it_does_before_it_starts() -> None:
    # -W: as if pyproject.toml had changed, so the install recipe shows even on an installed venv.
    done = make("-n", "-W", "pyproject.toml", ".venv/.installed")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    notice = lines.index(f'echo "{NOTICE}"')
    assert notice < min(n for n, line in enumerate(lines) if "pip install" in line)


def test_make_run_keeps_the_lone_server_on_one_cpu_unless_told_not_to() -> None:
    """games/live/server_cpu.py: `auto` by default, `make run SERVER_CPU=off` to opt out."""
    default = make("-n", "run").stdout.splitlines()[-1]
    assert default.startswith("SERVER_CPU=auto .venv/bin/daphne -b 127.0.0.1 -p 8000 ")
    opted_out = make("-n", "run", "SERVER_CPU=off").stdout.splitlines()[-1]
    assert opted_out.startswith("SERVER_CPU=off .venv/bin/daphne ")
