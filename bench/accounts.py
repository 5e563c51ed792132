"""Profiles and the leaderboard at 10,000 accounts and 100,000 rated games (issue 36), and what
a rated game's end costs.

    python -m bench.accounts [--accounts 10000] [--games 100000] [--busy 1000] [--requests 50]
        [--ends 200]

It builds, once, with `bulk_create`: `accounts` accounts (a few of them bot accounts), rated
tic-tac-toe and Flags rooms of two accounts with ten finished games each (`games` in all, each
with its summary and its two `RatingChange` rows), and every account's `Rating` per kind; one
account, the busy one, sits in `busy` of those games. Then, with Django's test `Client`,
`requests` times each: `/leaderboard/`, the busy account's `/@/<username>/` and `GET
/api/players/<username>`, printing p50 / p90 / max wall ms, median CPU ms of this process and
queries per request (target: under 50 ms). Last, `ends` rated and as many unrated tic-tac-toe
games between two accounts are played through `dispatch.play` (the service every door calls),
and the winning move is timed: the medians of both, and the rated end's extra queries (target:
one transaction, docs/performance.md).

A throwaway SQLite file by default; `BENCH_DATABASE_URL` (a PostgreSQL database that may be
emptied: it is migrated and filled) instead. Prints JSON.
"""

import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from . import procs

GAMES_PER_ROOM = 10
KINDS = ("tictactoe", "flags")
BOTS = 20
"""Bot accounts among the accounts: a list of their own on the leaderboard."""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def build(accounts: int, games: int, busy: int, rng: random.Random) -> str:
    """The accounts, rooms, seats, games, summaries, rating changes and ratings; the busy
    account's username."""
    from django.contrib.auth.models import User
    from django.db import transaction

    from games.players.models import Profile
    from games.store.models import Game, GameSummary, Player, Rating, RatingChange, Room

    with transaction.atomic():
        users = User.objects.bulk_create(
            User(username=f"player{n:05d}", password="!") for n in range(accounts)
        )
        Profile.objects.bulk_create(Profile(user=user, bot=True) for user in users[-BOTS:])
        ids = [user.pk for user in users]
        names = {user.pk: user.username for user in users}
        rooms_wanted = games // GAMES_PER_ROOM
        pairs = [
            (ids[0] if n < busy // GAMES_PER_ROOM else rng.choice(ids[1:]), rng.choice(ids[1:]))
            for n in range(rooms_wanted)
        ]
        pairs = [(a, b if b != a else ids[(ids.index(b) + 1) % len(ids) or 1]) for a, b in pairs]
        rooms = Room.objects.bulk_create(
            Room(kind=KINDS[n % 2], settings={"x": "human", "o": "human", "rated": True})
            for n in range(rooms_wanted)
        )
        start = datetime(2026, 1, 1, tzinfo=UTC)
        Player.objects.bulk_create(
            Player(room=room, number=seat, nickname=names[account], account_id=account)
            for room, pair in zip(rooms, pairs, strict=True)
            for seat, account in enumerate(pair)
        )
        Player.objects.update(joined_at=start)
        made = Game.objects.bulk_create(
            Game(
                room=room,
                number=number,
                seed=number,
                state={},
                status=Game.Status.WON,
                version=5,
                finished_at=start + timedelta(minutes=n * GAMES_PER_ROOM + number),
            )
            for n, room in enumerate(rooms)
            for number in range(1, GAMES_PER_ROOM + 1)
        )
        by_room = {room.pk: pair for room, pair in zip(rooms, pairs, strict=True)}
        kind_of = {room.pk: room.kind for room in rooms}
        winners = {game.pk: by_room[game.room_id][rng.randrange(2)] for game in made}
        GameSummary.objects.bulk_create(
            GameSummary(
                game=game,
                status=Game.Status.WON,
                kind=kind_of[game.room_id],
                players=[names[a] for a in by_room[game.room_id]],
                stats={"winner_name": names[winners[game.pk]]},
                finished_at=game.finished_at,
            )
            for game in made
        )
        RatingChange.objects.bulk_create(
            (
                RatingChange(
                    game=game,
                    account_id=account,
                    kind=kind_of[game.room_id],
                    username=names[account],
                    before=1500,
                    after=1500 + (15 if winners[game.pk] == account else -15),
                )
                for game in made
                for account in by_room[game.room_id]
            ),
            batch_size=5000,
        )
        played: dict[tuple[int, str], int] = {}
        for room in rooms:
            for account in by_room[room.pk]:
                key = (account, room.kind)
                played[key] = played.get(key, 0) + GAMES_PER_ROOM
        Rating.objects.bulk_create(
            (
                Rating(
                    account_id=account,
                    kind=kind,
                    mu=25,
                    sigma=3,
                    rating=rng.randint(1000, 2000),
                    games=count,
                )
                for (account, kind), count in played.items()
            ),
            batch_size=5000,
        )
    from django.db import connection

    if connection.vendor == "postgresql":  # as autovacuum would soon after such a load
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return names[ids[0]]


def timed(get: Callable[[], Any], requests: int) -> dict[str, object]:
    """p50 / p90 / max wall ms of `requests` calls (after one to warm up), the median CPU ms of
    this process (on a shared machine the wall time also counts waiting for a core; with
    SQLite the CPU is all of it), and queries per call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    assert get().status_code == 200
    spent, cpu, queries = [], [], []
    for _ in range(requests):
        with CaptureQueriesContext(connection) as captured:
            started, started_cpu = time.perf_counter(), time.process_time()
            answer = get()
            spent.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
        assert answer.status_code == 200, answer.status_code
        queries.append(len(captured.captured_queries))
    return {
        "p50_ms": round(statistics.median(spent), 1),
        "p90_ms": round(percentile(spent, 0.9), 1),
        "max_ms": round(max(spent), 1),
        "cpu_p50_ms": round(statistics.median(cpu), 1),
        "queries": max(queries),
        "under_50_ms": percentile(spent, 0.9) < 50,
    }


def pages(busy: str, requests: int) -> dict[str, object]:
    from django.test import Client

    client = Client()
    return {
        "leaderboard": timed(lambda: client.get("/leaderboard/"), requests),
        "profile": timed(lambda: client.get(f"/@/{busy}/"), requests),
        "api_player": timed(lambda: client.get(f"/api/players/{busy}"), requests),
    }


def game_end(rated: bool, ana: Any, bo: Any) -> tuple[float, int]:
    """One tic-tac-toe game between the two accounts, X winning: the winning move's wall ms
    and queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.protocol.messages import SquareMove
    from games.rooms import dispatch, joining

    settings = {"x": "human", "o": "human", "rated": rated}
    room, first = joining.open_room("tictactoe", settings, ana.username, account=ana)
    second = joining.join_room(room, bo.username, bo)
    assert first is not None
    for player, cell in ((first, 0), (second, 3), (first, 1), (second, 4)):
        dispatch.play(room, player, SquareMove(cell))
    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        dispatch.play(room, first, SquareMove(2))
        spent = (time.perf_counter() - started) * 1000
    assert room.current_game().status == "won"
    return spent, len(captured.captured_queries)


def game_ends(ends: int) -> dict[str, object]:
    """Rated and unrated ends interleaved, so that both see the same machine."""
    from django.contrib.auth.models import User

    ana = User.objects.create_user("end_ana", password=None)
    bo = User.objects.create_user("end_bo", password=None)
    times: dict[bool, list[float]] = {True: [], False: []}
    queries: dict[bool, int] = {}
    for _ in range(ends):
        for rated in (False, True):
            spent, count = game_end(rated, ana, bo)
            times[rated].append(spent)
            queries[rated] = max(queries.get(rated, 0), count)
    return {
        "unrated_end_p50_ms": round(statistics.median(times[False]), 2),
        "rated_end_p50_ms": round(statistics.median(times[True]), 2),
        "rated_extra_ms": round(
            statistics.median(times[True]) - statistics.median(times[False]), 2
        ),
        "unrated_end_queries": queries[False],
        "rated_end_queries": queries[True],
        "games_each": ends,
    }


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (
        ("accounts", 10_000),
        ("games", 100_000),
        ("busy", 1_000),
        ("requests", 50),
        ("ends", 200),
    ):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    with procs.django_here("accounts", os.environ.get("BENCH_DATABASE_URL", "")) as database:
        started = time.perf_counter()
        busy = build(args.accounts, args.games, args.busy, random.Random(36))
        built = round(time.perf_counter() - started, 1)
        figures = {
            "database": database,
            "accounts": args.accounts,
            "rated_games": args.games,
            "busy_games": args.busy,
            "build_s": built,
            **pages(busy, args.requests),
            "game_end": game_ends(args.ends),
        }
    json.dump(figures, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
