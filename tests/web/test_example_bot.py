"""The example bot from docs/api.md wins a no-guess beginner game through the real HTTP API."""

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from games.players import accounts
from games.store.models import Game, Move, Player

BOT = Path(__file__).resolve().parents[2] / "examples" / "minesweeper_bot.py"


def load_bot():
    spec = importlib.util.spec_from_file_location("minesweeper_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_the_documented_bot_wins_through_the_api(live_server, round_):
    assert load_bot().play(live_server.url, delay=0) == "won"
    game = Game.objects.latest("created_at")
    assert game.status == "won"
    assert Move.objects.filter(game=game).count() == game.version


def test_the_docs_show_the_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs


@pytest.mark.django_db(transaction=True)
def test_the_bot_prints_the_watch_link_and_waits_before_every_move(
    live_server, capsys, monkeypatch
):
    bot = load_bot()
    steps = []
    # The bot's own `time` only: the live server's thread shares the real module.
    monkeypatch.setattr(bot, "time", SimpleNamespace(sleep=lambda s: steps.append(("pause", s))))
    call = bot.call

    def recorded_call(base, method, path, *args):
        steps.append((method, path.rsplit("/", 1)[-1]))
        return call(base, method, path, *args)

    monkeypatch.setattr(bot, "call", recorded_call)
    assert bot.play(live_server.url, delay=0.25) == "won"
    game = Game.objects.select_related("room").latest("created_at")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Watch live: {live_server.url}/r/{game.room.code}/watch/"
    assert lines[-1] == "You win!"
    moves = [i for i, step in enumerate(steps) if step == ("POST", "moves")]
    pauses = [i for i, step in enumerate(steps) if step[0] == "pause"]
    assert len(moves) >= Move.objects.filter(game=game).count() > 1
    assert pauses == [i - 1 for i in moves]
    assert all(steps[i] == ("pause", 0.25) for i in pauses)


def test_the_delay_defaults_to_a_pace_a_watcher_can_follow():
    bot = load_bot()
    default = bot.parse_args([])
    assert default.base == "http://127.0.0.1:8000"
    assert 0.1 <= default.delay <= 0.5  # a few moves a second
    given = bot.parse_args(["http://example.test:9000", "--delay", "1.5"])
    assert (given.base, given.delay) == ("http://example.test:9000", 1.5)


@pytest.mark.parametrize("delay", ["-1", "soon"])
def test_a_bad_delay_is_a_usage_error(delay, capsys):
    with pytest.raises(SystemExit) as exit_:
        load_bot().parse_args(["--delay", delay])
    assert exit_.value.code == 2
    assert "--delay" in capsys.readouterr().err


@pytest.mark.django_db(transaction=True)
def test_the_bot_runs_from_the_command_line(live_server):
    done = subprocess.run(
        [sys.executable, str(BOT), live_server.url, "--delay", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    code = Game.objects.select_related("room").latest("created_at").room.code
    assert done.stdout.splitlines() == [
        f"Watch live: {live_server.url}/r/{code}/watch/",
        "You win!",
    ]


@pytest.mark.django_db(transaction=True)
def test_a_bot_run_with_a_token_sits_under_the_accounts_username(live_server, monkeypatch):
    user = accounts.sign_up("Robo_ex", "correct-horse-battery-9")
    monkeypatch.setenv("MINESWEEPER_TOKEN", accounts.issue_token(user))
    bot = load_bot()
    token = bot.parse_args([live_server.url]).token

    assert bot.play(live_server.url, delay=0, account=token) == "won"
    seat = Player.objects.select_related("account").latest("joined_at")
    assert (seat.account, seat.nickname) == (user, "Robo_ex")


def test_the_token_is_optional_and_given_on_the_command_line_or_by_env(monkeypatch):
    monkeypatch.delenv("MINESWEEPER_TOKEN", raising=False)
    assert load_bot().parse_args([]).token is None
    assert load_bot().parse_args(["--token", "abc"]).token == "abc"
    monkeypatch.setenv("MINESWEEPER_TOKEN", "from-env")
    assert load_bot().parse_args([]).token == "from-env"
