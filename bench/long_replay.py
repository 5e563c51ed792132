"""Looking at a long game under way (issue 26, item 6): a 30x16 game of 4,700 moves still being
played, read through the replay page and the API, as a spectator's rewind does.

    python -m bench.long_replay [--moves 4700] [--requests 20]

The moves are one opening reveal and then flag toggles (each a version, as in a long game two
players spend flagging and unflagging), so the game never ends: its timeline is not the kept one
of a finished game. Times in wall-clock ms on a throwaway SQLite database, as `bench.replay_page`:
the page at random positions, and the API's game view, each asked `requests` times at the same
version (several clients looking at once), plus the page's size.
"""

import random
import sys

from bench.replay_page import run, stored_game, summary, timed_views


def flagging(seed: int, target: int) -> list:
    """An opening reveal, then flag toggles on covered cells until `target` moves."""
    from games.engine.minesweeper import EXPERT, Action, Move, apply_move, new_game
    from games.engine.stats import LoggedMove

    rng = random.Random(seed)
    state = new_game(EXPERT, seed)
    grid = state.grid
    state, _ = apply_move(state, Move(Action.REVEAL, 15, 8, 0))
    moves = [LoggedMove(0, Action.REVEAL.value, 15, 8, 0)]
    hidden = [c for c in range(grid.size) if c not in state.revealed]
    while len(moves) < target and not state.is_over:
        x, y = grid.xy(rng.choice(hidden))
        seat = rng.randrange(4)
        state, events = apply_move(state, Move(Action.FLAG, x, y, seat))
        if events:
            moves.append(LoggedMove(seat, Action.FLAG.value, x, y, 400 * len(moves)))
    return moves


def after_a_move(room, game, requests: int) -> dict[str, list[float]]:
    """Milliseconds of the first page view and the first API view after each of `requests`
    further moves (a flag toggled), the previous version having been looked at: what every
    move of a game under way costs its first viewer."""
    import time

    from django.test import Client

    from games.engine import minesweeper as engine
    from games.store.models import Game, Move

    client = Client()
    state = engine.from_dict(game.state)
    x, y = state.grid.xy(next(c for c in range(state.grid.size) if c not in state.revealed))
    url = f"/r/{room.code}/games/{game.number}/"
    timed: dict[str, list[float]] = {"page": [], "api": []}
    client.get(url)
    for _ in range(requests):
        game.version += 1
        Move.objects.create(game=game, seq=game.version, seat=0, action="flag", x=x, y=y)
        Game.objects.filter(pk=game.pk).update(version=game.version)
        for name, path in (("page", url), ("api", f"/api/rooms/{room.code}/games/1")):
            started = time.perf_counter()
            assert client.get(path).status_code == 200
            timed[name].append((time.perf_counter() - started) * 1000)
    return timed


def measure(moves_wanted: int, requests: int) -> dict[str, object]:
    room, game, status = stored_game(moves_wanted, flagging)
    views = timed_views(room, game, game.version, requests)
    label = f"30x16/99, {game.version} moves, {status}"
    moved = after_a_move(room, game, requests)
    return {
        "game": label,
        "page_bytes": views["page_bytes"],
        "rows": [
            summary("timeline from the log", views["builds"]),
            summary("page, nothing kept", views["first"]),
            summary("page, same version again", views["later"]),
            summary("API game view, same version", views["api"]),
            summary("page, first view after a move", moved["page"]),
            summary("API game view, first after a move", moved["api"]),
        ],
    }


def main() -> int:
    return run(measure, __doc__, moves=4700, requests=20)


if __name__ == "__main__":
    sys.exit(main())
