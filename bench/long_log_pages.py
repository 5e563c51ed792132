"""Pages behind a long log (issue 33, item 4): the CPU one more move costs the watch page, the
link-preview picture and the invite page, at 100 logged moves and at 3,000.

    python -m bench.long_log_pages [--short 100] [--long 3000] [--requests 15]

A co-op expert game (an opening reveal, then flag toggles) and an eight-racer expert race (the
start, Go, then racers toggling flags) are stored as the service stores them, still under way.
Then, `requests` times: one more flag toggle is stored (state, version and log row, as `play`
writes them), and a spectator's `/r/<code>/watch/`, the chat app's `/r/<code>/preview.png?v=…`
and a stranger's `/r/<code>/` (the invite page) are asked for, as a chat app and a viewer do
after every move. Measured: this process's CPU (`time.process_time`, Django and SQLite both run
in it) over the three views, per move, in ms, and how many queries they made of the log. The target: at 3,000
moves no more than 1.5 × (+10 ms) what it is at 100. Prints JSON.
"""

import random
import statistics
import sys
import time
from datetime import UTC, datetime

from bench.long_replay import flagging
from bench.replay_page import percentile, run, stored_game

RACERS = 8
STEP_MS = 50
PAGES = ("watch", "preview", "invite")


def shown(racer, cell: int) -> bool:
    from games.engine.minesweeper import CellState

    return racer.cell_state(cell)[0] is CellState.REVEALED


def stored_race(rows_wanted: int):
    """An expert race under way whose log holds `rows_wanted` rows: the start, Go, and racers
    in turn toggling a flag on a covered cell of their board (a race can grow long this way)."""
    from games.engine import minesweeper as ms
    from games.engine import race as engine
    from games.kinds.race import rules as race_rules
    from games.rooms import joining  # after django.setup()
    from games.store.models import Game, Move

    settings = race_rules.validate_settings(30, 16, 99, False, penalty=0)
    room = joining.create_room("race", settings, is_public=True)
    for seat in range(RACERS):
        joining.join_room(room, f"Racer {seat + 1}")
    rules = race_rules.rules_of({**room.current_game().params, "penalty": 0})
    seed = 7
    now = int(time.time() * 1000) - STEP_MS * (rows_wanted + 100) - 10_000
    entrants = [engine.Entrant(player.number) for player in room.players.order_by("number")]
    race, _ = engine.start(engine.new_race(rules, seed), entrants, now, None, 0)
    log = [engine.Logged(entrants[0].seat, "start", now)]
    race, _ = engine.tick(race, now)
    log.append(engine.Logged(2_147_483_647, "tick", now))
    rng = random.Random(seed)
    while len(log) < rows_wanted:
        racer = race.racers[len(log) % RACERS]
        now += STEP_MS
        covered = [c for c in range(race.grid.size) if not shown(racer, c)]
        x, y = race.grid.xy(rng.choice(covered))
        race, _ = engine.move(race, racer.seat, ms.Action.FLAG, x, y, now)
        log.append(engine.Logged(racer.seat, "flag", now, x, y))
    game = room.current_game()
    stamp = lambda ms_: datetime.fromtimestamp(ms_ / 1000, UTC)  # noqa: E731
    Game.objects.filter(pk=game.pk).update(
        seed=seed,
        params={**game.params, "penalty": 0},
        state=engine.to_dict(race),
        status=race_rules.status_of(race),
        version=len(log),
        started_at=stamp(log[0].at),
    )
    Move.objects.bulk_create(
        Move(game=game, seq=seq, seat=row.seat, action=row.action, x=row.x, y=row.y)
        for seq, row in enumerate(log, start=1)
    )
    for seq, row in enumerate(log, start=1):  # auto_now_add stamped them now
        Move.objects.filter(game=game, seq=seq).update(created_at=stamp(row.at))
    return room, Game.objects.get(pk=game.pk)


def another_flag(room, game) -> None:
    """One more flag toggle, stored as `dispatch.play` stores a move: the new state, the bumped
    version and the log row, in one transaction."""
    from django.db import transaction

    from games.engine import minesweeper as ms
    from games.engine import race as engine
    from games.store.models import Game, Move

    version = game.version + 1
    if room.kind == "race":
        race = engine.from_dict(game.state)
        racer = race.racers[version % RACERS]
        cell = next(c for c in range(race.grid.size) if not shown(racer, c))
        x, y = race.grid.xy(cell)
        race, _ = engine.move(race, racer.seat, ms.Action.FLAG, x, y, int(time.time() * 1000))
        seat, state = racer.seat, engine.to_dict(race)
    else:
        board = ms.from_dict(game.state)
        x, y = board.grid.xy(next(c for c in range(board.grid.size) if c not in board.revealed))
        board, _ = ms.apply_move(board, ms.Move(ms.Action.FLAG, x, y, 0))
        seat, state = 0, ms.to_dict(board)
    with transaction.atomic():
        Move.objects.create(game=game, seq=version, seat=seat, action="flag", x=x, y=y)
        Game.objects.filter(pk=game.pk).update(version=version, state=state)
    game.version, game.state = version, state


def per_move(room, game, requests: int) -> dict[str, object]:
    """CPU ms of the three views after each of `requests` further moves, and log rows read."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    viewer, stranger = Client(), Client()
    urls = {
        "watch": lambda: f"/r/{room.code}/watch/",
        "preview": lambda: f"/r/{room.code}/preview.png?v={game.number}.{game.version}",
        "invite": lambda: f"/r/{room.code}/",
    }
    for page in PAGES:  # templates compiled, the game's first build behind us
        (stranger if page == "invite" else viewer).get(urls[page]())
    cpu: dict[str, list[float]] = {page: [] for page in (*PAGES, "all")}
    rows_read = []
    for _ in range(requests):
        another_flag(room, game)
        spent = 0.0
        with CaptureQueriesContext(connection) as queries:
            for page in PAGES:
                client = stranger if page == "invite" else viewer
                started = time.process_time()
                response = client.get(urls[page]())
                cpu[page].append((time.process_time() - started) * 1000)
                spent += cpu[page][-1]
                assert response.status_code == 200, (page, response.status_code)
        cpu["all"].append(spent)
        rows_read.append(sum('FROM "games_move"' in q["sql"] for q in queries.captured_queries))
    figures: dict[str, object] = {
        f"{page}_cpu_ms": round(statistics.median(values), 2) for page, values in cpu.items()
    }
    figures["all_cpu_p95_ms"] = round(percentile(cpu["all"], 0.95), 2)
    figures["move_queries_per_move"] = max(rows_read)
    return figures


def measure(short: int, long: int, requests: int) -> dict[str, object]:
    from django.db import transaction

    results: dict[str, object] = {}
    for kind in ("coop", "race"):
        by_size = {}
        for moves in (short, long):
            with transaction.atomic():  # one commit, not one a row
                if kind == "coop":
                    room, game, _ = stored_game(moves, flagging)
                else:
                    room, game = stored_race(moves)
            by_size[moves] = per_move(room, game, requests)
        small = float(by_size[short]["all_cpu_ms"])  # type: ignore[arg-type]
        large = float(by_size[long]["all_cpu_ms"])  # type: ignore[arg-type]
        results[kind] = {
            **{f"{moves} moves": figures for moves, figures in by_size.items()},
            "ratio": round(large / small, 2),
            "target_met": large <= 1.5 * small + 10,
        }
    return results


def main() -> int:
    return run(measure, __doc__, short=100, long=3000, requests=15)


if __name__ == "__main__":
    sys.exit(main())
