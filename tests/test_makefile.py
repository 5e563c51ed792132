"""The Makefile's newcomer paths: `make play` and the first install's notice (dry runs, `make -n`,
except one real game when .venv is already installed)."""

import os
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


def run_line(*args: str, env: dict[str, str]) -> str:
    """The command `make run` starts its server with."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def pin_notice(*args: str, env: dict[str, str]) -> list[str]:
    """The line `make run` prints before it starts a pinned server (none when it does not pin)."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [line for line in done.stdout.splitlines() if "SERVER_CPU=off" in line]


@pytest.mark.skipif(
    shutil.which("taskset") is None or len(getattr(os, "sched_getaffinity", set)(0)) < 2,
    reason="needs taskset (util-linux) and two CPUs to choose from",
)
def test_make_run_keeps_the_lone_server_on_one_cpu_unless_told_not_to() -> None:
    """SERVER_CPU: `auto` by default (taskset, the lowest CPU, when no REDIS_URL makes the server
    one of several), a CPU number, or `make run SERVER_CPU=off` to opt out."""
    alone = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    lowest = min(os.sched_getaffinity(0))
    daphne = ".venv/bin/daphne -b 127.0.0.1 -p 8000 "
    assert run_line(env=alone).startswith(f"taskset -c {lowest} {daphne}")
    assert run_line("SERVER_CPU=off", env=alone).startswith(daphne)
    assert run_line("SERVER_CPU=1", env=alone).startswith(f"taskset -c 1 {daphne}")
    shared = {**alone, "REDIS_URL": "redis://127.0.0.1:6379/0"}
    assert run_line(env=shared).startswith(daphne)
    assert run_line("SERVER_CPU=1", env=shared).startswith(f"taskset -c 1 {daphne}")


@pytest.mark.skipif(
    shutil.which("taskset") is None or len(getattr(os, "sched_getaffinity", set)(0)) < 2,
    reason="needs taskset (util-linux) and two CPUs to choose from",
)
def test_make_run_says_when_it_pins_the_server_and_how_not_to() -> None:
    """Three servers started with `make run` on one machine all shared CPU 0, and nothing said so."""
    alone = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    lowest = min(os.sched_getaffinity(0))
    [notice] = pin_notice(env=alone)
    assert f"one CPU (taskset -c {lowest})" in notice
    assert "make run SERVER_CPU=off leaves it to the scheduler" in notice
    assert pin_notice("SERVER_CPU=off", env=alone) == []
    assert pin_notice(env={**alone, "REDIS_URL": "redis://127.0.0.1:6379/0"}) == []
