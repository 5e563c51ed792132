"""The example Flags bot from docs/api.md plays whole games against the computer through the real
HTTP API, and the docs show it verbatim."""

import importlib.util
from pathlib import Path

import pytest

from games.engine import flags as engine
from games.players import accounts
from games.store.models import Game, Move, Player

BOT = Path(__file__).resolve().parents[2] / "examples" / "flags_bot.py"


def load_bot():
    spec = importlib.util.spec_from_file_location("flags_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(2))
def test_the_documented_bot_plays_a_game_to_its_end(live_server, capsys, round_):
    won = load_bot().play(live_server.url, "easy")
    game = Game.objects.select_related("room").latest("created_at")
    assert game.room.kind == "flags" and game.status == "won"
    state = engine.from_dict(game.state)
    assert (state.winner is engine.Seat.X) is won  # the bot holds X
    assert Move.objects.filter(game=game).count() == game.version
    assert Move.objects.filter(game=game, player__isnull=False).exists()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Watch live: {live_server.url}/r/{game.room.code}/watch/"
    x, o = state.score(engine.Seat.X), state.score(engine.Seat.O)
    assert lines[-1] == (f"You win, {x} to {o}!" if won else f"The computer wins, {x} to {o}.")


def test_the_bot_bombs_the_square_with_the_most_mines_expected():
    bot = load_bot()
    board = ["#" * 5] * 5
    odds = bot.chances(board, 5)
    assert odds[(0, 0)] == pytest.approx(5 / 25)
    expected, centre = bot.best_bomb(odds)
    assert centre == (2, 2) and expected == pytest.approx(5)
    # A 3 in the corner with one claimed neighbour: each of its two hidden cells is 2 / 2.
    board = ["3x###", "##___", "_____", "_____", "_____"]
    odds = bot.chances(board, 9)
    assert odds[(0, 1)] == odds[(1, 1)] == 1.0


def test_the_docs_show_the_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs


@pytest.mark.django_db(transaction=True)
def test_the_bot_with_a_token_plays_under_the_accounts_username(live_server):
    user = accounts.sign_up("Robo_fl", "correct-horse-battery-9")
    load_bot().play(live_server.url, "easy", accounts.issue_token(user))
    seat = Player.objects.select_related("room").latest("joined_at")
    assert (seat.room.kind, seat.account, seat.nickname) == ("flags", user, "Robo_fl")
