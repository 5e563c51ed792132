"""docs/api.md shows the racing bot (examples/race_bot.py) verbatim; tests/e2e/test_race_bot.py
races it against the Solver bot on a real Daphne's websocket."""

from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "examples" / "race_bot.py"


def test_the_docs_show_the_racing_bot_verbatim():
    docs = (BOT.parents[1] / "docs" / "api.md").read_text()
    assert BOT.read_text().strip() in docs
