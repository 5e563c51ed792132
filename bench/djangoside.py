"""The bench's few direct database steps, run as a subprocess with the server's environment.

    python -m bench.djangoside rooms  < [{"width": 30, "height": 16, "mines": 99}, ...]
    python -m bench.djangoside boards < ["<code>", ...]
    python -m bench.djangoside races  < [{"width": 30, "height": 16, "mines": 99, "delay": 0}]
    python -m bench.djangoside race_boards < ["<code>"]
    python -m bench.djangoside long_game < {"moves": 4700}

`rooms` makes rooms straight in the database, because the pages and the API create at most ten
rooms a minute per address and the bench needs a hundred; every player still joins through the
pages and plays with its session cookie. `boards` tells the load generator where the mines are
(after the first reveal placed them), so its moves are always valid and never end a game.
"""

import json
import os
import sys


def _uncapped(room):
    """The room with the host's player cap at its highest (a new room takes 8): a scenario
    seats as many players as it asks for, up to the hard cap of 50."""
    from games import services

    room.player_cap = services.MAX_PLAYERS_PER_ROOM
    room.save(update_fields=["player_cap"])
    return room


def make_rooms(specs: list[dict[str, int]]) -> list[str]:
    from games import services
    from games.kinds.minesweeper import rules as minesweeper

    codes = []
    for spec in specs:
        settings = minesweeper.validate_settings(spec["width"], spec["height"], spec["mines"])
        room = services.create_room("minesweeper", settings, is_public=False)
        codes.append(_uncapped(room).code)
    return codes


def make_races(specs: list[dict[str, int]]) -> list[str]:
    from games import services
    from games.kinds.race import rules

    codes = []
    for spec in specs:
        settings = rules.validate_settings(
            spec["width"], spec["height"], spec["mines"], True, spectator_delay=spec["delay"]
        )
        codes.append(_uncapped(services.create_room("race", settings, is_public=False)).code)
    return codes


def race_boards(codes: list[str]) -> dict[str, dict[str, object]]:
    """Each racer's board of the room's race (one room), by seat, as `boards` gives a game's."""
    from games.models import Room

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
    from games.models import Room

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
    result = commands[command](data)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
