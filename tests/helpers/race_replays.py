"""Races played to their end through the API, for the replay and link-preview tests.

Moved out of tests/web/test_race_replays.py (issue 34): test modules share helpers from here, never
from each other."""

import datetime
import json
import re

from django.test import Client

from games.engine import race as engine
from games.kinds.race import rules
from games.rooms import playing
from games.store.models import Move, Room
from tests.helpers.web import racer_safe_hidden

JSON = "application/json"


def api_race(client: Client, names=("Ana", "Bo"), **body) -> tuple[str, list[str]]:
    body = {"game": "minesweeper", "mode": "race", "preset": "beginner", "public": True, **body}
    created = client.post("/api/rooms", {**body, "name": names[0]}, content_type=JSON)
    assert created.status_code == 201, created.content
    code = created.json()["code"]
    tokens = [created.json()["player_token"]]
    for name in names[1:]:
        joined = client.post(f"/api/rooms/{code}/join", {"name": name}, content_type=JSON)
        tokens.append(joined.json()["player_token"])
    return code, tokens


def send(client: Client, code: str, token: str, **body) -> int:
    headers = {"Authorization": f"Bearer {token}"}
    answer = client.post(f"/api/rooms/{code}/moves", body, content_type=JSON, headers=headers)
    return answer.status_code


def race_of(code: str) -> engine.Race:
    return rules.load(Room.objects.get(code=code).current_game().state)


def go(code: str) -> None:
    """Go now: the countdown, the start's log row included, moved back to have run out (the log
    stays one the race replays from, as if the host had started it three seconds ago)."""
    game = Room.objects.get(code=code).current_game()
    state = dict(game.state)
    shift = state["go_at"] - rules.now_ms()
    state["go_at"] -= shift
    game.state = state
    game.save(update_fields=["state"])
    start = Move.objects.get(game=game, action="start")
    start.created_at -= datetime.timedelta(milliseconds=shift)
    start.save(update_fields=["created_at"])
    assert playing.tick(Room.objects.get(code=code)) is not None


def safe_hidden(code: str, seat: int) -> list[tuple[int, int]]:
    return racer_safe_hidden(race_of(code), seat)


def numbered_hidden(code: str, seat: int) -> list[tuple[int, int]]:
    """The racer's hidden safe cells that show a number: each opens alone, so none finishes the
    board (a zero's cascade can, and a finished racer's next move or give-up gets a 409)."""
    race = race_of(code)
    assert race.field is not None
    return [xy for xy in safe_hidden(code, seat) if race.field.counts[race.grid.index(*xy)]]


def replay_data(html: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found is not None
    return json.loads(found[1])
