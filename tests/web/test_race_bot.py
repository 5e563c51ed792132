"""The racing bot from docs/api.md races the Solver bot through the real HTTP API and wins."""

import importlib.util
from pathlib import Path

import pytest

from games import services
from games.kinds.race import rules
from games.models import Game, Move

BOT = Path(__file__).resolve().parents[2] / "examples" / "race_bot.py"


def load_bot():
    spec = importlib.util.spec_from_file_location("race_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.django_db(transaction=True)
def test_the_documented_racing_bot_beats_the_solver_bot(live_server, capsys):
    assert load_bot().race(live_server.url, pace=4) == 1
    game = Game.objects.select_related("room").latest("created_at")
    assert game.room.kind == "race" and game.status == "won"
    race = rules.load(game.state)
    assert race.is_over and race.winner == 0
    assert {r.seat for r in race.racers} == {0, services.COMPUTER_SEAT}
    assert Move.objects.filter(game=game).count() == game.version
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Watch live: ") and out[-1].startswith("Place 1 of 2, time ")


def test_the_docs_show_the_racing_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs
