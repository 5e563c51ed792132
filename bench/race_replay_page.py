"""A race's replay page end to end (issue 16 for races): eight racers on an expert board (30x16,
99 mines), about 500 logged rows (the start, Go, moves taking turns, the end), stored as the
service stores them, read through the replay page and the API.

    python -m bench.race_replay_page [--rows 500] [--requests 40]

Times, in wall-clock ms on a throwaway SQLite database: the timeline from the log
(`engine.race.replay_rows`, each changed board diffed; the kept timelines cleared), the page at a
random `?move=k` on a first view and once the timeline is kept, and the API's game view. Prints
JSON; the target is the co-op one, any position in under 50 ms.
"""

import sys
from datetime import UTC, datetime

from bench.replay_page import TARGET_MS, run, summary, timed_views

RACERS = 8
STEP_MS = 60


def play(rows_wanted: int):
    """A race of eight racers taking turns, each revealing the cell its own board proves safe (or
    a guess, as the Solver bot does); a mine costs no time (penalty 0). Returns the race's rules,
    seed, entrants, its log and the race at its end."""
    from games.engine import minesweeper as ms
    from games.engine import race as engine

    rules = engine.Rules(ms.Config(30, 16, 99), penalty_ms=0)
    seed = 7
    entrants = [engine.Entrant(seat) for seat in range(RACERS)]
    now = 1_000_000
    log = [engine.Logged(0, "start", now)]
    race, _ = engine.start(engine.new_race(rules, seed), entrants, now)
    now = race.go_at or now
    log.append(engine.Logged(2_147_483_647, "tick", now))
    race, _ = engine.tick(race, now)
    turn = 0
    while len(log) < rows_wanted and not race.is_over:
        racer = race.racers[turn % RACERS]
        turn += 1
        if not racer.is_racing:
            continue
        now += STEP_MS
        x, y = race.grid.xy(engine.bot_cell(racer, seed))
        race, _ = engine.move(race, racer.seat, ms.Action.REVEAL, x, y, now)
        log.append(engine.Logged(racer.seat, "reveal", now, x, y))
    for racer in race.racers:  # the rest give up, so the race is over
        if racer.is_racing:
            now += STEP_MS
            race, _ = engine.give_up(race, racer.seat, now)
            log.append(engine.Logged(racer.seat, "give_up", now))
    return rules, seed, race, log


def stored_race(rows_wanted: int):
    from games.engine import race as engine
    from games.kinds.race import rules as race_rules
    from games.rooms import joining  # after django.setup()
    from games.store.models import Game, Move

    settings = race_rules.validate_settings(30, 16, 99, False, penalty=0)
    room = joining.create_room("race", settings, is_public=True)
    for seat in range(RACERS - 1):
        joining.join_room(room, f"Racer {seat + 2}")
    rules, seed, race, log = play(rows_wanted)
    game = room.current_game()
    stamp = lambda ms: datetime.fromtimestamp(ms / 1000, UTC)  # noqa: E731
    Game.objects.filter(pk=game.pk).update(
        seed=seed,
        params={**game.params, "penalty": 0},
        state=engine.to_dict(race),
        status=race_rules.status_of(race),
        version=len(log),
        finished_at=stamp(log[-1].at),
    )
    Move.objects.bulk_create(
        Move(game=game, seq=seq, seat=row.seat, action=row.action, x=row.x, y=row.y)
        for seq, row in enumerate(log, start=1)
    )
    for seq, row in enumerate(log, start=1):  # auto_now_add stamped them now
        Move.objects.filter(game=game, seq=seq).update(created_at=stamp(row.at))
    return room, Game.objects.get(pk=game.pk), race


def measure(rows_wanted: int, requests: int) -> dict[str, object]:
    from games.web import history

    room, game, race = stored_race(rows_wanted)
    timeline = history.timeline_of(room, game)
    assert timeline is not None and timeline.over and not timeline.withheld
    views = timed_views(room, game, timeline.moves, requests)
    return {
        "race": f"{RACERS} racers, 30x16/99, {game.version} rows, {timeline.moves} steps",
        "winner": race.winner,
        "page_bytes": views["page_bytes"],
        "target_ms": TARGET_MS,
        "rows": [
            summary("timeline from the log", views["builds"]),
            summary("page, first view", views["first"]),
            summary("page, race kept", views["later"]),
            summary("API game view", views["api"]),
        ],
    }


def main() -> int:
    return run(measure, __doc__, rows=500, requests=40)


if __name__ == "__main__":
    sys.exit(main())
