"""The bench's few direct database steps, run as a subprocess with the server's environment.

    python -m bench.djangoside rooms  < [{"width": 30, "height": 16, "mines": 99}, ...]
    python -m bench.djangoside boards < ["<code>", ...]
    python -m bench.djangoside races  < [{"width": 30, "height": 16, "mines": 99, "delay": 0}]
    python -m bench.djangoside race_boards < ["<code>"]
    python -m bench.djangoside long_game < {"moves": 4700}
    python -m bench.djangoside publish < ["<code>", ...]
    python -m bench.djangoside home_cost < "<code>"

`rooms` makes rooms straight in the database, because the pages and the API create at most ten
rooms a minute per address and the bench needs a hundred; every player still joins through the
pages and plays with its session cookie. `boards` tells the load generator where the mines are
(after the first reveal placed them), so its moves are always valid and never end a game.
"""

import importlib
import json
import os
import sys
from types import ModuleType


def _joining() -> ModuleType:
    """games.rooms.joining, imported after `django.setup()` (it imports the models)."""
    return importlib.import_module("games.rooms.joining")


def _uncapped(room):
    """The room with the host's player cap at its highest (a new room takes 8): a scenario
    seats as many players as it asks for, up to the hard cap of 50."""

    room.player_cap = _joining().MAX_PLAYERS_PER_ROOM
    room.save(update_fields=["player_cap"])
    return room


def make_rooms(specs: list[dict[str, int]]) -> list[str]:
    from games.kinds.minesweeper import rules as minesweeper

    codes = []
    for spec in specs:
        settings = minesweeper.validate_settings(spec["width"], spec["height"], spec["mines"])
        room = _joining().create_room("minesweeper", settings, is_public=False)
        codes.append(_uncapped(room).code)
    return codes


def publish(codes: list[str]) -> int:
    """Make rooms public: the home page's "On now" features only public rooms (`bench.crowd`)."""
    from games.store.models import Room

    return Room.objects.filter(code__in=codes).update(is_public=True)


def home_cost(code: str) -> dict[str, object]:
    """The queries and time of one home page view in this process, against the servers'
    database and cache: with the process's pick read afresh (`on_now.forget`, the most a view
    costs, once a second per process), and reused (every other view)."""
    import time

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games.web import on_now

    client = Client(HTTP_HOST="127.0.0.1")

    def view(fresh: bool) -> tuple[int, float]:
        if fresh:
            on_now.forget()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            page = client.get("/")
            took = time.perf_counter() - started
        if page.status_code != 200 or f"/r/{code}/watch/" not in page.content.decode():
            raise RuntimeError(f"the home page does not feature {code}")
        return len(queries), took

    view(True)  # templates loaded, connection open
    fresh = [view(True) for _ in range(10)]
    kept = [view(False) for _ in range(10)]
    return {  # medians: a view that crosses the process's second reads the pick afresh
        "queries_fresh": sorted(q for q, _ in fresh)[5],
        "queries_kept": sorted(q for q, _ in kept)[5],
        "view_fresh_ms": round(1e3 * sorted(t for _, t in fresh)[5], 2),
        "view_kept_ms": round(1e3 * sorted(t for _, t in kept)[5], 2),
    }


def make_races(specs: list[dict[str, int]]) -> list[str]:
    from games.kinds.race import rules

    codes = []
    for spec in specs:
        settings = rules.validate_settings(
            spec["width"], spec["height"], spec["mines"], True, spectator_delay=spec["delay"]
        )
        codes.append(_uncapped(_joining().create_room("race", settings, is_public=False)).code)
    return codes


def race_boards(codes: list[str]) -> dict[str, dict[str, object]]:
    """Each racer's board of the room's race (one room), by seat, as `boards` gives a game's."""
    from games.store.models import Room

    state = Room.objects.get(code=codes[0]).current_game().state
    return {
        str(racer["seat"]): {
            "width": state["width"],
            "height": state["height"],
            "mines": state["field"] or [],
            "revealed": racer["revealed"],
            "flags": racer["flags"],
        }
        for racer in state["racers"]
    }


def boards(codes: list[str]) -> dict[str, dict[str, object]]:
    from games.store.models import Room

    found = {}
    for room in Room.objects.filter(code__in=codes):
        game = room.current_game()
        state = game.state
        found[room.code] = {
            "width": state["width"],
            "height": state["height"],
            "version": game.version,
            "mines": state["field"] or [],
            "revealed": [cell for cells in state["revealed"].values() for cell in cells],
            "flags": [cell for cells in state["flags"].values() for cell in cells],
        }
    return found


def long_game(spec: dict[str, int]) -> str:
    """An expert room whose game under way holds `moves` moves (`bench.long_replay`)."""
    from bench.long_replay import flagging
    from bench.replay_page import stored_game

    room, _game, _status = stored_game(spec["moves"], flagging)
    return room.code


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    command = sys.argv[1]
    data = json.load(sys.stdin)
    commands = {"rooms": make_rooms, "boards": boards, "races": make_races}
    commands["race_boards"] = race_boards
    commands["long_game"] = long_game
    commands["publish"] = publish
    commands["home_cost"] = home_cost
    result = commands[command](data)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
