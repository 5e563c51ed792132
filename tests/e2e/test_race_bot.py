"""The racing bot of docs/api.md (examples/race_bot.py) races the Solver bot on a real Daphne:
HTTP once to create the room, then the websocket alone (its token, the `json` subprotocol), to
the results. No browser: the Daphne of the e2e session serves it."""

import asyncio
import importlib.util
import re
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from games.engine import race as engine
from games.kinds.table import COMPUTER_SEAT

BOT = Path(__file__).resolve().parents[2] / "examples" / "race_bot.py"
pytest.importorskip("websockets")


def load_bot():
    spec = importlib.util.spec_from_file_location("race_bot", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_documented_racing_bot_beats_the_solver_bot_on_the_websocket(
    live_server_url, game_db, capsys
):
    bot = load_bot()
    race_on = asyncio.wait_for(bot.race(live_server_url, pace=4), timeout=90)
    # A thread of its own: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        place = pool.submit(asyncio.run, race_on).result()
    assert place == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Watch live: ") and out[-1].startswith("Place 1 of 2, time ")
    code = re.search(r"/r/([^/]+)/watch/", out[0]).group(1)  # type: ignore[union-attr]
    game = game_db.game(code)
    race = engine.from_dict(game["state"])
    assert game["status"] == "won" and race.is_over and race.winner == 0
    assert set(race.seats) == {0, COMPUTER_SEAT}
    assert race.entrants[-1].pace == 4  # seated from the socket at the pace asked for
    ours, theirs = race.racer(0), race.racer(COMPUTER_SEAT)
    assert ours is not None and theirs is not None and ours.finished_at is not None
    assert theirs.finished_at is None or theirs.finished_at > ours.finished_at
    moves = game_db.query(game_db.MOVES, game["id"])
    actions = [action for _, seat, action, _, _ in moves if seat == 0]
    assert actions[0] == "start" and set(actions[1:]) == {"reveal"}  # never a flag: saves clicks
    assert ours.clicks == len(actions)  # Go's opening click, then every reveal it sent
    shown = f"time {(ours.finished_at - race.go_at) / 1000:.2f} s"  # type: ignore[operator]
    assert shown in out[-1]


def test_the_racing_bot_stops_when_the_host_deletes_the_room(live_server_url, game_db):
    """Close code 4404 (the room is gone) ends the bot with a sentence, where a dropped
    connection would have it reconnect (docs/api.md, "Writing a bot")."""
    bot = load_bot()
    made = {}

    def create_race(base, account=None):
        made.update(original(base, account))
        return made

    def snapshot(racer, event):
        seen(racer, event)
        if racer.phase == "racing" and not made.get("deleted"):  # Go: mid-race, delete it
            made["deleted"] = True
            request = urllib.request.Request(
                f"{live_server_url}/api/rooms/{made['code']}", method="DELETE"
            )
            request.add_header("Authorization", f"Bearer {made['player_token']}")
            with urllib.request.urlopen(request) as answer:
                assert answer.status == 204

    original, seen = bot.create_race, bot.Racer.snapshot
    bot.create_race, bot.Racer.snapshot = create_race, snapshot
    race_on = asyncio.wait_for(bot.race(live_server_url, pace=1), timeout=90)
    with ThreadPoolExecutor(1) as pool, pytest.raises(SystemExit, match="4404"):
        pool.submit(asyncio.run, race_on).result()
    assert made["deleted"]
    assert not game_db.query("SELECT id FROM games_room WHERE code = {p}", made["code"])
