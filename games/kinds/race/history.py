"""A race's replay and results, from its seed, the racers its start named and its move log.

The log is played again row by row with the race engine (`engine.replay_rows`), and every row
that changed what a spectator sees (Go, a racer's move or the Solver bot's, a finish, someone out)
becomes a step; rows that change nothing on a board (a racer away and back, a penalty ending) are
left out of the scrubber. The boards are laid side by side in one timeline (`Part` per racer),
each cell named as on a spectator's screen (`cell-SEAT-X-Y`), with the full cell markup.

A race under way is never replayed here: its boards show where the mines are (a number on one
board is a number on every board), and spectators see the race a few seconds late, so the page
says why and offers the replay once the race is over (`Timeline.withheld`).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import minesweeper as ms
from games.engine import race as engine
from games.engine.errors import EngineError
from games.engine.stats import seconds

from ...store.models import Game, Move
from ..replays import MINESWEEPER_LEGEND, OPEN_CHARS, Part, Replays, Seat, Step, Timeline
from ..table import COMPUTER_SEAT
from . import preview, rules

RACE_SEAT = -1
"""The seat the timeline gives events of the race itself (Go, the time limit)."""
RACE = Seat("Race", "race")
BOT = Seat(rules.BOT_NAME, "bot")
WITHHELD = (
    "A race under way cannot be rewound: its boards would show where the mines are, and "
    "spectators follow it a few seconds late. Its replay opens here once the race is over."
)
UNREPLAYABLE = "This race's move log does not play back to the race it recorded: no replay."
_SHOWN = (engine.Went, engine.BoardChanged, engine.Finished, engine.Out, engine.RaceOver)
"""Events a spectator sees; a row with none of them is no step of the replay."""


def logged(moves: Sequence[Move]) -> list[engine.Logged]:
    """The Move rows as the engine replays them, each at the time its rules used (ms)."""
    return [
        engine.Logged(m.seat, m.action, round(m.created_at.timestamp() * 1000), m.x, m.y)
        for m in moves
    ]


def board_chars(racer: engine.Racer) -> str:
    return "".join(rules.board_rows(racer))


def timeline(game: Game, moves: Sequence[Move], seats: Mapping[int, Seat]) -> Timeline:
    """Every position of a finished race, its boards side by side; nothing of one under way."""
    params = game.params
    width, height = params["width"], params["height"]
    named = {**seats, COMPUTER_SEAT: BOT, RACE_SEAT: RACE}
    log = logged(moves)
    stored = rules.load(game.state)
    if under_way(game) or not log or log[0].action != "start":
        return _withheld(width, height, named, WITHHELD)
    try:
        return _played(game, log, stored, named)
    except EngineError:  # a log that does not replay (made by hand, or by a test's clock)
        return _withheld(width, height, named, UNREPLAYABLE)


def _played(
    game: Game,
    log: Sequence[engine.Logged],
    stored: engine.Race,
    named: Mapping[int, Seat],
) -> Timeline:
    """`stored`: the race as its state keeps it, for the racers and the layout its start drew."""
    params = game.params
    width, height = params["width"], params["height"]
    rows = engine.replay_rows(
        rules.rules_of(params), game.seed, stored.entrants, log, stored.layout, rules.countdown_ms()
    )
    race, _ = next(rows)
    order = race.seats
    size = width * height
    offsets = {seat: index * size for index, seat in enumerate(order)}
    start = "".join(board_chars(racer) for racer in race.racers)
    steps: list[Step] = []
    for row, (race, events) in zip(log[1:], rows, strict=True):
        if not any(isinstance(event, _SHOWN) for event in events):
            continue
        # The cells each board's events changed, as the spectators' fragments drew them (the
        # events, not whole boards: an expert board is 480 cells, redrawn on every row).
        changed: dict[int, str] = {}
        for event in events:
            if isinstance(event, engine.BoardChanged):
                for c in ms.changed_cells(race.grid, event.changes):
                    changed[offsets[event.seat] + c.y * width + c.x] = _char(c)
        cells, chars = tuple(sorted(changed)), [changed[cell] for cell in sorted(changed)]
        mover = _mover(row, events)
        target = None
        if mover in offsets and row.x is not None and row.y is not None:
            target = offsets[mover] + row.y * width + row.x
        at = None if race.go_at is None else row.at - race.go_at
        line = describe(row, mover, events, named, "".join(chars))
        steps.append(
            Step(len(steps) + 1, mover, at, row.action, target, cells, "".join(chars), line)
        )
    over = race.is_over
    field = race.field
    mines = tuple(
        offsets[seat] + cell for seat in order for cell in sorted(field.mines if field else ())
    )
    return Timeline(
        width=width,
        height=height,
        ids=tuple(
            f"cell-{seat}-{cell % width}-{cell // width}" for seat in order for cell in range(size)
        ),
        legend=MINESWEEPER_LEGEND,
        start=start,
        steps=tuple(steps),
        status=rules.status_of(race),
        over=over,
        mines=mines if over else (),
        stats=statistics(game, race, named),
        seats=named,
        parts=tuple(Part(seat, offsets[seat]) for seat in order),
    )


def _char(change: ms.CellChange) -> str:
    """A changed cell in `board_chars`'s characters."""
    if change.state is ms.CellState.REVEALED:
        return str(change.count) if change.count else "_"
    return rules.CELL_CHARS[change.state]


def _withheld(width: int, height: int, seats: Mapping[int, Seat], why: str) -> Timeline:
    return Timeline(
        width=width,
        height=height,
        ids=(),
        legend=MINESWEEPER_LEGEND,
        start="",
        steps=(),
        status="playing",
        over=False,
        seats=seats,
        withheld=why,
    )


def _mover(row: engine.Logged, events: engine.Events) -> int:
    """Whose step it is: the racer who moved or gave up; for a tick, the Solver bot when its
    board changed, else the race itself (Go, the time limit, a racer away too long)."""
    if row.action != "tick":
        return row.seat
    went = any(isinstance(e, engine.Went) for e in events)
    bot = any(isinstance(e, engine.BoardChanged) and e.seat == COMPUTER_SEAT for e in events)
    return COMPUTER_SEAT if bot and not went else RACE_SEAT


def describe(
    row: engine.Logged,
    mover: int,
    events: engine.Events,
    seats: Mapping[int, Seat],
    chars: str,
) -> str:
    """What the step did, after the mover's name: "revealed 14 cells", "hit a mine"."""
    parts = []
    for event in events:
        if isinstance(event, engine.Went):
            parts.append(f"Go: row {event.y + 1}, column {event.x + 1} opens on every board")
    opened = sum(1 for char in chars if char in OPEN_CHARS)
    if mover != RACE_SEAT:
        where = "" if row.x is None or row.y is None else f"row {row.y + 1}, column {row.x + 1}"
        hit = any(isinstance(e, engine.Penalised) for e in events) or any(
            isinstance(e, engine.Out) and e.standing is engine.Standing.ELIMINATED for e in events
        )
        if row.action == "give_up":
            parts.append("gave up")
        elif hit:
            parts.append(f"hit a mine at {where}")
        elif row.action == "flag":
            parts.append(f"flagged {where}" if "F" in chars else f"removed the flag at {where}")
        elif row.action == "chord":
            parts.append(f"chorded {where}: {_cells(opened)}")
        else:
            parts.append(f"revealed {_cells(opened)}")
    for event in events:
        if isinstance(event, engine.Finished):
            who = "" if event.seat == mover else f"{seats[event.seat].name} "
            parts.append(f"{who}finished in {seconds(event.time_ms):.2f} s")
        elif isinstance(event, engine.Out) and event.standing is not engine.Standing.GAVE_UP:
            if event.standing is engine.Standing.ELIMINATED and event.seat == mover:
                parts.append("and is out")
            else:
                parts.append(f"{_name(seats, event.seat)} is out ({rules.OUT[event.standing]})")
        elif isinstance(event, engine.RaceOver):
            parts.append("the race is over")
    return "; ".join(parts) or "moved"


def _name(seats: Mapping[int, Seat], seat: int) -> str:
    found = seats.get(seat)
    return found.name if found is not None else f"Seat {seat + 1}"


def _cells(n: int) -> str:
    return f"{n} cell{'s' if n != 1 else ''}"


def statistics(game: Game, race: engine.Race, seats: Mapping[int, Seat]) -> dict[str, Any]:
    """The results table's figures per racer, by place, and the winner's as the race's own
    (time from Go to their last safe cell, 3BV/s, clicks, IOE): what the history and records
    show. `winner_name` is the winner's nickname as the room knew it then."""
    results = [rules.result_facts(r) for r in engine.results(race)]
    for result in results:
        time_ms = result["time_ms"]
        result["time_s"] = seconds(time_ms)
        result["ended"] = rules.ENDED[engine.Standing(result["standing"])]
    winner = race.winner
    best = next((r for r in results if r["seat"] == winner), None)
    field = race.field
    return {
        "board": board_name(game.params),
        "no_guess": bool(game.params.get("no_guess")),
        "time_ms": None if best is None else best["time_ms"],
        "time_s": None if best is None else best["time_s"],
        "three_bv": results[0]["three_bv"] if results else None,
        "bv_per_s": None if best is None else best["bv_per_s"],
        "clicks": 0 if best is None else best["clicks"],
        "ioe": None if best is None else best["ioe"],
        "mines": 0 if field is None else len(field.mines),
        "winner": winner,
        "winner_name": None if winner is None else _name(seats, winner),
        "players": results,
    }


def board_name(params: Mapping[str, Any]) -> str:
    """The records' board: a preset's name when the race was run on one, else "" (custom)."""
    size = {key: params.get(key) for key in ("width", "height", "mines")}
    return next((name for name, preset in rules.PRESETS.items() if preset == size), "")


def under_way(game: Game) -> bool:
    """A race not over yet (lobby, countdown, racing): its timeline withholds every board."""
    return game.status == Game.Status.PLAYING


REPLAYS = Replays(
    timeline=timeline,
    withholds=under_way,
    board_class="replay-boards",
    cell_class="cell",
    stats_template="games/race_stats.html#race",
    results_template="games/race_stats.html#race_results",
    records="Race winners",
    record_holder="Winner",
    link_words=preview.words,
)
