"""Minesweeper races: one layout on every board, Go opens the same cell, penalties, elimination,
finishing, the time limit, racers away too long, computer racers, results and storage.

Layouts are pictures: `*` a mine, anything else safe. Times are milliseconds from 0.
"""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import race as r
from games.engine.errors import OutOfBoundsError
from games.engine.minesweeper import Action, CellState, Config, Status

REVEAL, FLAG, CHORD = Action.REVEAL, Action.FLAG, Action.CHORD

# 5x4, two mines on the right; the start cell (chosen from the seed, inside the edges) opens
# the zero area on the left. Safe cells: 18.
LAYOUT = """
....*
.....
.....
...*.
"""


def mines_of(picture: str) -> tuple[Config, frozenset[int]]:
    rows = picture.strip().splitlines()
    width = len(rows[0])
    mines = frozenset(
        y * width + x for y, row in enumerate(rows) for x, c in enumerate(row) if c == "*"
    )
    return Config(width, len(rows), len(mines)), mines


def started(
    picture: str = LAYOUT,
    seats: tuple[int, ...] = (0, 1),
    penalty_ms: int = 5000,
    eliminate: bool = False,
    limit: int | None = None,
    paces: dict[int, int] | None = None,
    seed: int = 7,
) -> r.Race:
    """A race at Go (time 3000), its start cell forced to a safe zero where the layout has one."""
    config, mines = mines_of(picture)
    race = r.new_race(r.Rules(config, penalty_ms, eliminate, limit), seed)
    entrants = [r.Entrant(seat, (paces or {}).get(seat)) for seat in seats]
    race, events = r.start(race, entrants, 0, mines)
    assert events == (r.CountdownStarted(3000, seats),)
    zero = next(c for c in range(config.width * config.height) if _zero(config, mines, c))
    race = replace(race, start=zero)
    race, events = r.tick(race, 3000)
    assert race.phase is r.Phase.RACING
    assert isinstance(events[0], r.Went)
    return race


def _zero(config: Config, mines: frozenset[int], cell: int) -> bool:
    grid = config.grid
    return cell not in mines and not any(n in mines for n in grid.neighbours(cell))


def safe_cells(race: r.Race) -> list[tuple[int, int]]:
    assert race.field is not None
    return [race.grid.xy(c) for c in range(race.grid.size) if c not in race.field.mines]


def finish(race: r.Race, seat: int, now: int) -> tuple[r.Race, r.Events]:
    events: r.Events = ()
    for x, y in safe_cells(race):
        racer = race.racer(seat)
        assert racer is not None
        if race.grid.index(x, y) not in racer.board.revealed:
            race, events = r.move(race, seat, REVEAL, x, y, now)
    return race, events


def test_go_opens_the_same_start_cell_on_every_board():
    race = started(seats=(0, 1, 2))
    boards = {racer.seat: frozenset(racer.board.revealed) for racer in race.racers}
    assert len(set(boards.values())) == 1 and race.start in boards[0]
    assert all(racer.clicks == 1 for racer in race.racers)


def test_no_race_is_drawn_on_a_layout_go_clears_at_once():
    """Go would win every board and end the race at 0.0, everyone tied: a layout the start cell
    opens whole is drawn again. On 9x9 with 3 mines about one first draw in six is one."""
    config = Config(9, 9, 3)
    for seed in range(60):
        race, _ = r.start(r.new_race(r.Rules(config), seed), [r.Entrant(0), r.Entrant(1)], 0)
        race, _ = r.tick(race, 3000)
        assert race.phase is r.Phase.RACING, seed
        assert all(racer.board.status is Status.PLAYING for racer in race.racers)


def test_a_board_too_dense_for_anything_else_still_races_and_ends_at_go():
    """4x4 with 7 mines: every safe cell touches the opening, so each layout is cleared by Go.
    The draws are bounded; the race starts, and ends at once with both racers finished."""
    race, _ = r.start(r.new_race(r.Rules(Config(4, 4, 7)), 3), [r.Entrant(0), r.Entrant(1)], 0)
    race, _ = r.tick(race, 3000)
    assert race.phase is r.Phase.OVER and race.ended_at == 3000
    assert {racer.standing for racer in race.racers} == {r.Standing.FINISHED}


def test_a_replay_takes_the_layout_its_start_drew_from_the_state():
    """A replay must not depend on how this version draws layouts: given the kept layout it
    rebuilds the race on it; drawn from the seed again, a hand-made layout would be lost."""
    race = started()
    assert race.field is not None
    log = [r.Logged(0, "start", 0), r.Logged(0, "tick", 3000), r.Logged(0, "reveal", 3500, 0, 0)]
    entrants = race.entrants
    again = r.replay_log(race.rules, race.seed, entrants, log, race.layout)
    assert again.field == race.field
    assert r.replay_log(race.rules, race.seed, entrants, log).field != race.field


def test_the_shell_may_shorten_the_countdown_and_a_replay_counts_with_it():
    """The shell passes another countdown (tests shorten the 3 s); the replay, given the same,
    puts Go at the same time."""
    config, mines = mines_of(LAYOUT)
    entrants = [r.Entrant(0), r.Entrant(1)]
    race, _ = r.start(r.new_race(r.Rules(config), 1), entrants, 100, mines, countdown_ms=250)
    assert race.go_at == 350 and race.phase is r.Phase.COUNTDOWN
    assert r.tick(race, 350)[0].phase is r.Phase.RACING
    log = [r.Logged(0, "start", 100), r.Logged(0, "tick", 350)]
    again = r.replay_log(race.rules, race.seed, entrants, log, race.layout, countdown_ms=250)
    assert again.go_at == 350 and again.phase is r.Phase.RACING


def test_moves_are_refused_before_go_and_by_people_not_racing():
    config, mines = mines_of(LAYOUT)
    race, _ = r.start(r.new_race(r.Rules(config), 1), [r.Entrant(0), r.Entrant(1)], 0, mines)
    with pytest.raises(r.RaceError, match="wait for Go"):
        r.move(race, 0, REVEAL, 0, 0, 1000)
    race, _ = r.tick(race, 2999)
    assert race.phase is r.Phase.COUNTDOWN
    race, _ = r.tick(race, 3000)
    with pytest.raises(r.RaceError, match="not racing"):
        r.move(race, 5, REVEAL, 0, 0, 3100)
    with pytest.raises(OutOfBoundsError):
        r.move(race, 0, REVEAL, 9, 0, 3100)


def test_a_race_needs_two_to_eight_distinct_racers_and_starts_once():
    config, mines = mines_of(LAYOUT)
    race = r.new_race(r.Rules(config), 1)
    with pytest.raises(r.RaceError, match="2 to 8"):
        r.start(race, [r.Entrant(0)], 0, mines)
    with pytest.raises(r.RaceError, match="2 to 8"):
        r.start(race, [r.Entrant(n) for n in range(9)], 0, mines)
    with pytest.raises(r.RaceError, match="twice"):
        r.start(race, [r.Entrant(0), r.Entrant(0)], 0, mines)
    going, _ = r.start(race, [r.Entrant(0), r.Entrant(1)], 0, mines)
    with pytest.raises(r.RaceError, match="already started"):
        r.start(going, [r.Entrant(0), r.Entrant(1)], 0, mines)


def test_a_move_changes_only_the_movers_board():
    race = started()
    before = race.racer(1)
    race, events = r.move(race, 0, FLAG, 4, 0, 3500)
    assert events == (r.BoardChanged(0, events[0].changes),)  # type: ignore[union-attr]
    assert race.racer(1) == before
    assert race.racer(0).board.flags == {4: 0}  # type: ignore[union-attr]


def test_a_mine_freezes_the_board_for_the_penalty_and_stays_shown():
    race = started(penalty_ms=5000)
    race, events = r.move(race, 0, REVEAL, 4, 0, 4000)
    racer = race.racer(0)
    assert racer is not None
    assert r.Penalised(0, 9000) in events
    assert racer.cell_state(4) == (CellState.EXPLODED, None) and racer.hits == {4}
    assert racer.board.status is Status.PLAYING and racer.is_racing
    with pytest.raises(r.RaceError, match="frozen for 4.0 s"):
        r.move(race, 0, REVEAL, 0, 3, 5000)
    assert r.due(race) == 9000
    race, events = r.tick(race, 9000)
    assert events == (r.Thawed(0),)
    race, _ = r.move(race, 0, FLAG, 4, 0, 9100)  # a hit mine cannot be unflagged
    assert race.racer(0).cell_state(4)[0] is CellState.EXPLODED  # type: ignore[union-attr]
    race, _ = finish(race, 0, 9500)
    racer = race.racer(0)
    assert racer is not None and racer.standing is r.Standing.FINISHED
    result = r.results(race)[0]
    assert (result.seat, result.mines_hit, result.time_ms) == (0, 1, 6500)


def test_elimination_puts_the_racer_out_and_the_race_goes_on():
    race = started(seats=(0, 1, 2), eliminate=True)
    race, events = r.move(race, 1, REVEAL, 4, 0, 4000)
    assert r.Out(1, r.Standing.ELIMINATED) in events
    assert race.phase is r.Phase.RACING
    out = race.racer(1)
    assert out is not None and out.cell_state(4)[0] is CellState.EXPLODED
    assert out.cell_state(18)[0] is CellState.HIDDEN  # the other mine stays hidden: same layout
    with pytest.raises(r.RaceError, match="out of this race"):
        r.move(race, 1, REVEAL, 0, 0, 4100)


def test_the_first_to_clear_wins_and_the_race_ends_when_nobody_races():
    race = started(seats=(0, 1, 2))
    race, events = finish(race, 2, 10_000)
    assert r.Finished(2, 7000) in events and race.winner == 2
    with pytest.raises(r.RaceError, match="finished"):
        r.move(race, 2, REVEAL, 0, 0, 10_001)
    race, _ = finish(race, 0, 12_000)
    race, events = r.give_up(race, 1, 13_000)
    assert events == (r.Out(1, r.Standing.GAVE_UP), r.RaceOver(13_000))
    assert race.is_over and r.due(race) is None
    assert [(x.seat, x.place, x.time_s) for x in r.results(race)] == [
        (2, 1, 7.0),
        (0, 2, 9.0),
        (1, 3, None),
    ]
    with pytest.raises(r.RaceError, match="over"):
        r.move(race, 1, REVEAL, 0, 0, 14_000)


def test_the_time_limit_ends_the_race_for_everyone_still_racing():
    race = started(limit=60_000)
    race, _ = finish(race, 0, 10_000)
    assert r.due(race) == 63_000
    race, events = r.tick(race, 63_000)
    assert r.Out(1, r.Standing.TIMED_OUT) in events and race.is_over


def test_a_racer_away_past_the_grace_period_is_out_and_one_back_in_time_is_not():
    race = started(seats=(0, 1, 2))
    race, events = r.set_away(race, 1, True, 5000)
    assert events == (r.AwayChanged(1, True),)
    race, _ = r.set_away(race, 2, True, 5000)
    race, _ = r.set_away(race, 2, False, 20_000)
    assert r.due(race) == 5000 + r.GRACE_MS
    race, events = r.tick(race, 5000 + r.GRACE_MS)
    assert events == (r.Out(1, r.Standing.DNF),)
    assert race.racer(2).is_racing  # type: ignore[union-attr]


def test_a_computer_racer_reveals_only_proven_cells_at_its_pace_and_finishes():
    race = started(paces={1: 4})
    assert r.due(race) == 3250
    now = 3000
    for _ in range(100):
        now = r.due(race) or now
        race, events = r.tick(race, now)
        for event in events:
            if isinstance(event, r.Penalised):
                pytest.fail("the layout needs no guess, so the bot never hits a mine")
        if race.racer(1).standing is r.Standing.FINISHED:  # type: ignore[union-attr]
            break
    racer = race.racer(1)
    assert racer is not None and racer.standing is r.Standing.FINISHED
    assert racer.clicks >= 2 and racer.finished_at is not None
    assert racer.next_at is None or not racer.is_racing


def test_chord_around_a_wrong_flag_hits_and_opens_the_rest():
    race = started()
    # (3, 0) is a 1 next to the mine at (4, 0); flag the wrong neighbour (3, 1)... then chord.
    race, _ = r.move(race, 0, REVEAL, 3, 0, 3100)
    race, _ = r.move(race, 0, FLAG, 4, 1, 3200)
    race, events = r.move(race, 0, CHORD, 3, 0, 3300)
    assert any(isinstance(e, r.Penalised) for e in events)
    assert race.racer(0).hits == {4}  # type: ignore[union-attr]


def test_results_give_place_time_3bv_and_ioe():
    race = started()
    race, _ = finish(race, 1, 5500)
    race, _ = r.give_up(race, 0, 6000)
    first, second = r.results(race)
    assert (first.seat, first.place, first.time_ms) == (1, 1, 2500)
    assert first.three_bv >= 1 and first.bv_per_s == first.three_bv / 2.5
    assert first.ioe == first.three_bv / first.clicks
    assert (second.place, second.time_ms, second.ioe) == (2, None, None)


def test_storage_round_trips_through_json():
    race = started(seats=(0, 3), paces={3: 2})
    race, _ = r.move(race, 0, REVEAL, 4, 0, 3500)
    race, _ = r.move(race, 3, FLAG, 4, 3, 3600)
    race, _ = r.set_away(race, 3, True, 3700)
    again = r.from_dict(json.loads(json.dumps(r.to_dict(race))))
    assert again == race


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**62),
    moves=st.lists(
        st.tuples(
            st.sampled_from([0, 1]),
            st.sampled_from([REVEAL, FLAG, CHORD]),
            st.integers(0, 8),
            st.integers(0, 8),
            st.integers(0, 2000),
        ),
        max_size=40,
    ),
)
def test_random_races_keep_boards_apart_replay_and_round_trip(seed, moves):
    """Whatever the racers do: each board changes only by its racer's moves, every racer's
    revealed cells are safe, the stored form round-trips, and the log replays to the same race."""
    config = Config(9, 9, 10)
    race, _ = r.start(
        r.new_race(r.Rules(config, penalty_ms=1000), seed), [r.Entrant(0), r.Entrant(1)], 0
    )
    race, _ = r.tick(race, 3000)
    begun = race
    now = 3000
    log = []
    for seat, action, x, y, wait in moves:
        now += wait
        race, _ = r.tick(race, now)
        log.append(r.Logged(0, "tick", now))
        other = race.racer(1 - seat)
        try:
            race, events = r.move(race, seat, action, x, y, now)
        except r.RaceError:
            continue
        log.append(r.Logged(seat, action.value, now, x, y))
        assert race.racer(1 - seat) == other
        assert r.changed_seats(events) <= {seat}
        assert race.field is not None
        for racer in race.racers:
            assert not set(racer.board.revealed) & race.field.mines
        assert r.from_dict(json.loads(json.dumps(r.to_dict(race)))) == race
    assert r.replay(begun, log) == race
