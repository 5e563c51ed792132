"""docs/api.md shows the racing bot (examples/race_bot.py) verbatim; tests/e2e/test_race_bot.py
races it against the Solver bot on a real Daphne's websocket. Here: with a personal token its
race is created in the account's seat."""

import importlib.util
from pathlib import Path

import pytest

from games.players import accounts
from games.store.models import Player

BOT = Path(__file__).resolve().parents[2] / "examples" / "race_bot.py"


def test_the_docs_show_the_racing_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs


@pytest.mark.django_db(transaction=True)
def test_a_race_created_with_a_token_seats_the_account(live_server):
    spec = importlib.util.spec_from_file_location("race_bot", BOT)
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    user = accounts.sign_up("Robo_rc", "correct-horse-battery-9")

    room = bot.create_race(live_server.url, accounts.issue_token(user))

    seat = Player.objects.get(room__code=room["code"])
    assert (seat.account, seat.nickname) == (user, "Robo_rc")
