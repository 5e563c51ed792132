"""The example bot from docs/api.md wins a no-guess beginner game through the real HTTP API."""

import importlib.util
from pathlib import Path

import pytest

from games.models import Game, Move

BOT = Path(__file__).resolve().parents[2] / "examples" / "minesweeper_bot.py"


def load_bot():
    spec = importlib.util.spec_from_file_location("minesweeper_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_the_documented_bot_wins_through_the_api(live_server, round_):
    assert load_bot().play(live_server.url) == "won"
    game = Game.objects.latest("created_at")
    assert game.status == "won"
    assert Move.objects.filter(game=game).count() == game.version


def test_the_docs_show_the_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs
