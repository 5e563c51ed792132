"""Showing a replay position end to end (issue 16): a 30x16 game of 500 moves, stored as the
service stores games (Game + 500 Move rows), read through the replay page and the API.

    python -m bench.replay_page [--moves 500] [--requests 60]   (also run by `python -m bench`)

Times, in wall-clock ms on a throwaway SQLite database:
  - the timeline built from the move log (`games.web.history.timeline_of`, kept cache cleared):
    read 500 rows, replay them with the engine, diff each move;
  - GET /r/<code>/games/1/?move=k for random k, the first view of the game (nothing kept) and
    later views (the finished game's timeline kept per process): the whole Django response,
    template and JSON of every diff included;
  - GET /api/rooms/<code>/games/1.
A browser then shows any other position without asking the server (static/games/replay.js).
Prints JSON; the target is any position in under 50 ms.
"""

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta

from . import procs

TARGET_MS = 50.0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def summary(name: str, values: list[float]) -> dict[str, object]:
    return {
        "what": name,
        "median_ms": round(statistics.median(values), 2),
        "p95_ms": round(percentile(values, 0.95), 2),
        "runs": len(values),
    }


def stored_game(moves_wanted: int, play: Callable[[int, int], list] | None = None):
    """An expert room whose game 1 holds the bench's 500-move game as rows (`play`: another
    way to make the moves, from a seed and a count)."""
    from django.utils import timezone

    from bench.engine_replay import play as played
    from games.engine import minesweeper as engine
    from games.kinds.minesweeper import rules
    from games.rooms import joining  # after django.setup()
    from games.store.models import Game, Move

    play = play or played
    seed, moves = 1, play(1, moves_wanted)
    while len(moves) < moves_wanted:
        seed += 1
        moves = play(seed, moves_wanted)
    room = joining.create_room("minesweeper", rules.validate_settings(30, 16, 99), is_public=True)
    for seat in range(4):
        joining.join_room(room, f"Player {seat + 1}")
    state = engine.new_game(engine.EXPERT, seed)
    for logged in moves:
        state, _ = engine.apply_move(state, logged.move())
    start = timezone.now()
    game = room.current_game()
    Game.objects.filter(pk=game.pk).update(
        seed=seed,
        state=engine.to_dict(state),
        status=state.status.value,
        version=len(moves),
        started_at=start,
        finished_at=None if not state.is_over else start + timedelta(milliseconds=moves[-1].at_ms),
    )
    Move.objects.bulk_create(
        Move(
            game=game,
            seq=seq,
            seat=logged.seat,
            action=engine.Action(logged.action).value,
            x=logged.x,
            y=logged.y,
        )
        for seq, logged in enumerate(moves, start=1)
    )
    for seq, logged in enumerate(moves, start=1):  # the times the game had (auto_now_add set now)
        Move.objects.filter(game=game, seq=seq).update(
            created_at=start + timedelta(milliseconds=logged.at_ms or 0)
        )
    return room, Game.objects.get(pk=game.pk), state.status.value


def timed_views(room, game, steps: int, requests: int) -> dict:
    """Milliseconds per call: the timeline built from the log (`builds`), the replay page at a
    random step of `steps` with nothing kept (`first`) and with the timeline kept (`later`), the
    API's game view (`api`); and the page's size at its last step (`page_bytes`)."""
    from django.test import Client

    from games.web import history

    client = Client()
    rng = random.Random(0)
    url = f"/r/{room.code}/games/{game.number}/"

    builds = []
    for _ in range(max(5, requests // 4)):
        history.forget_timelines()
        started = time.perf_counter()
        history.timeline_of(room, game)
        builds.append((time.perf_counter() - started) * 1000)

    def timed(path: str, *, cold: bool) -> float:
        if cold:
            history.forget_timelines()
        started = time.perf_counter()
        response = client.get(path)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, (path, response.status_code)
        return elapsed

    client.get(url)  # templates compiled
    first = [timed(f"{url}?move={rng.randrange(steps + 1)}", cold=True) for _ in range(requests)]
    later = [timed(f"{url}?move={rng.randrange(steps + 1)}", cold=False) for _ in range(requests)]
    api = [
        timed(f"/api/rooms/{room.code}/games/{game.number}", cold=False) for _ in range(requests)
    ]
    page_bytes = len(client.get(url).content)
    return {"builds": builds, "first": first, "later": later, "api": api, "page_bytes": page_bytes}


def measure(moves_wanted: int, requests: int) -> dict[str, object]:
    room, game, status = stored_game(moves_wanted)
    views = timed_views(room, game, game.version, requests)
    return {
        "game": f"30x16/99, {game.version} moves, {status}",
        "page_bytes": views["page_bytes"],
        "target_ms": TARGET_MS,
        "rows": [
            summary("timeline from the log", views["builds"]),
            summary("page, first view", views["first"]),
            summary("page, game kept", views["later"]),
            summary("API game view", views["api"]),
        ],
    }


def run(measure: Callable[..., dict[str, object]], doc: str, **defaults: int) -> int:
    """A page bench's command line: `--name N` for each default, in order the arguments of
    `measure`, which runs on a throwaway database; its result is printed as JSON."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, default in defaults.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    with procs.django_here("replay", REPLAY_BUILDS_PER_MINUTE="1000000"):  # builds on purpose
        json.dump(measure(*(getattr(args, name) for name in defaults)), sys.stdout)
    print()
    return 0


def main() -> int:
    return run(measure, __doc__, moves=500, requests=60)


if __name__ == "__main__":
    sys.exit(main())
