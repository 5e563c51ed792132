"""Minesweeper races: validated settings, moves and commands over the pure race engine, the clock
(countdown, penalties, racers away, the time limit, the computer racer), and what the API shows.

Times: the engine counts milliseconds; here they come from `time.time()` (the kinds' rules may
read the clock; the engine never does).
"""

import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from games.engine import minesweeper as ms
from games.engine import race as engine
from games.engine.errors import EngineError, GenerationError
from games.engine.stats import rounded

from ...protocol.messages import CellMove, Message
from ..options import size_faults as table_size_faults
from ..table import (
    COMPUTER_SEAT,
    Applied,
    HostOnly,
    Invalid,
    Lineup,
    Refused,
    Restart,
    SettingsError,
    whole,
)

MAX_WIDTH = 30
MAX_HEIGHT = 24
"""Smaller than co-op's 50x50: a race screen shows up to eight boards, and a spectator's
snapshot of eight full 30x24 boards is about half of the websocket's 1 MiB message limit."""
NO_GUESS_MAX_DENSITY = 0.25
PRESETS = {
    name: {"width": c.width, "height": c.height, "mines": c.mines} for name, c in ms.PRESETS.items()
}
PENALTIES = (0, 3, 5, 10, 20)
"""Seconds a mine freezes the board; "eliminate" instead puts the racer out."""
TIME_LIMITS = (0, 60, 120, 300, 600, 1200)
"""Seconds from Go; 0: no limit."""
DELAYS = (0, 3, 5, 10)
"""Seconds by which spectators' screens trail the race, so a friend watching cannot coach."""
PACES = (1, 2, 4)
"""The computer racer's safe cells a second."""
DEFAULTS = {
    "penalty": 5,
    "eliminate": False,
    "time_limit": 0,
    "spectator_delay": 3,
    "bot_pace": 2,
    "bot": False,
    "rated": False,
}
BOT_NAME = "Solver bot"


def _choice(value: Any, allowed: tuple[int, ...], field: str, what: str) -> int:
    if isinstance(value, bool) or value not in allowed:
        shown = ", ".join(map(str, allowed))
        raise SettingsError(f"{what} must be one of {shown}.", field)
    return int(value)


def size_faults(width: Any, height: Any, mines: Any) -> list[SettingsError]:
    """Every fault of a custom size the home form can show at once (see `table.size_faults`)."""
    return table_size_faults(
        (("width", width, 4, MAX_WIDTH), ("height", height, 4, MAX_HEIGHT)), mines
    )


def validate_settings(
    width: Any,
    height: Any,
    mines: Any,
    no_guess: Any = True,
    **options: Any,
) -> dict[str, Any]:
    """Room settings within the limits, or a SettingsError that says what is allowed."""
    for field, value, limit in (("width", width, MAX_WIDTH), ("height", height, MAX_HEIGHT)):
        if not whole(value) or not 4 <= value <= limit:
            raise SettingsError(
                f"{field.capitalize()} must be a whole number from 4 to {limit}.", field
            )
    most = ms.max_mines(width, height)
    if not whole(mines) or not 1 <= mines <= most:
        raise SettingsError(f"A {width}×{height} board takes 1 to {most} mines.", "mines")
    if not isinstance(no_guess, bool):
        raise SettingsError("no_guess must be true or false.", "no_guess")
    if no_guess and mines > NO_GUESS_MAX_DENSITY * width * height:
        raise SettingsError(
            f"No-guess boards allow at most {int(NO_GUESS_MAX_DENSITY * 100)}% mines: "
            f"{int(NO_GUESS_MAX_DENSITY * width * height)} on {width}×{height}.",
            "mines",
        )
    given = {**DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
    eliminate, rated = given["eliminate"], given["rated"]
    if not isinstance(eliminate, bool):
        raise SettingsError("eliminate must be true or false.", "eliminate")
    if not isinstance(rated, bool):
        raise SettingsError("rated must be true or false.", "rated")
    if rated and not no_guess:
        raise SettingsError("Rated races are no-guess: luck must decide nothing.", "no_guess")
    return {
        "width": width,
        "height": height,
        "mines": mines,
        "no_guess": no_guess,
        "mode": "race",
        "penalty": _choice(given["penalty"], PENALTIES, "penalty", "The mine penalty (seconds)"),
        "eliminate": eliminate,
        "time_limit": _choice(
            given["time_limit"], TIME_LIMITS, "time_limit", "The time limit (seconds)"
        ),
        "spectator_delay": _choice(
            given["spectator_delay"], DELAYS, "spectator_delay", "The spectator delay (seconds)"
        ),
        "bot_pace": _choice(given["bot_pace"], PACES, "bot_pace", "The computer racer's pace"),
        "bot": bool(given["bot"]),
        **({"rated": True} if rated else {}),
    }


def has_bot(params: Mapping[str, Any]) -> bool:
    """Whether the computer racer takes part (given a game's params or the room's settings)."""
    return bool(params.get("bot"))


def with_pace(params: dict[str, Any], pace: int) -> dict[str, Any]:
    """`params` (or the room's settings) with the computer racer at `pace` safe cells a second."""
    if isinstance(pace, bool) or pace not in PACES:
        raise Invalid(f"The Solver bot races at {', '.join(map(str, PACES))} cells a second.")
    return {**params, "bot_pace": pace}


def creator_sits(settings: dict[str, Any]) -> bool:
    return True


def game_params(settings: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """Every race of a room runs the room's settings (a rematch: the same, on a new seed)."""
    return settings


def rules_of(params: Mapping[str, Any]) -> engine.Rules:
    config = ms.Config(params["width"], params["height"], params["mines"], params["no_guess"])
    limit = params.get("time_limit") or 0
    return engine.Rules(
        config,
        penalty_ms=int(params.get("penalty", 5)) * 1000,
        eliminate=bool(params.get("eliminate")),
        time_limit_ms=limit * 1000 if limit else None,
    )


def initial_state(params: dict[str, Any], seed: int) -> dict[str, Any]:
    return engine.to_dict(engine.new_race(rules_of(params), seed))


def standings(state: Mapping[str, Any], params: Mapping[str, Any]) -> dict[int, int] | None:
    """Each racer's seat by place once the race is over (`GameKind.rules.standings`): the race's own
    places, except that a racer who gave up (or left the room, which gives up) comes last,
    whatever they had cleared: leaving a rated race under way loses it. None while it runs."""
    race = load(state)
    if not race.is_over:
        return None
    places, last = engine.places(race), len(race.racers) + 1
    return {
        racer.seat: last if racer.standing is engine.Standing.GAVE_UP else places[racer.seat]
        for racer in race.racers
        if racer.seat != COMPUTER_SEAT
    }


def playing_seats(state: Mapping[str, Any], params: Mapping[str, Any]) -> frozenset[int] | None:
    """The racers once a race is named (who joined later only watches); None in the lobby,
    where every seat is about to race."""
    race = load(state)
    return None if race.phase is engine.Phase.LOBBY else frozenset(race.seats)


def stopped(race: engine.Race) -> frozenset[int]:
    """The seats out of a race that others still run (gave up, out, finished): they see the
    rivals' boards, so they watch with the spectators, as late, and talk in their channel."""
    if race.phase is not engine.Phase.RACING:
        return frozenset()
    return frozenset(r.seat for r in race.racers if not r.is_racing and r.seat != COMPUTER_SEAT)


def watching(state: Mapping[str, Any], params: Mapping[str, Any]) -> frozenset[int]:
    """`stopped`, from a game's state (`PerSeatBoards.watching`)."""
    return stopped(load(state))


def load(state: Mapping[str, Any]) -> engine.Race:
    return engine.from_dict(state)


def now_ms() -> int:
    return int(time.time() * 1000)


def countdown_ms() -> int:
    """From the start to Go: the engine's 3 s unless RACE_COUNTDOWN_SECONDS says otherwise, so
    tests need not wait through it (a replay counts with the same figure)."""
    return round(settings.RACE_COUNTDOWN_SECONDS * 1000)


def status_of(race: engine.Race) -> str:
    """`Game.status`: playing until the race is over; then won when someone finished."""
    if not race.is_over:
        return "playing"
    return "won" if race.winner is not None else "lost"


def _applied(race: engine.Race, events: engine.Events, now: int, **summary: Any) -> Applied:
    """The rules' result, with the time they used (`now`, ms): the move log is stamped with it."""
    return Applied(engine.to_dict(race), status_of(race), events, summary, race, now / 1000)


def apply(
    state: dict[str, Any], message: Message, seat: int, params: dict[str, Any] | None = None
) -> Applied:
    """A racer's move on their own board."""
    if not isinstance(message, CellMove) or message.action not in ("reveal", "flag", "chord"):
        raise Invalid("This is a Minesweeper race: send reveal, flag or chord with x and y.")
    race = engine.from_dict(state)
    now = now_ms()
    race, back = engine.set_away(race, seat, False, now)  # a move shows the racer is here
    try:
        race, events = engine.move(race, seat, ms.Action(message.action), message.x, message.y, now)
    except engine.RaceError as error:
        raise Refused(_sentence(error)) from error
    except EngineError as error:
        raise Invalid(_sentence(error)) from error
    return _applied(race, back + events, now, mover=seat)


def _sentence(error: Exception) -> str:
    text = str(error)
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


# Commands -----------------------------------------------------------------------------------------


def start(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    """The host starts the countdown with the room's seated players (online ones first, up to
    eight with the computer racer), when there are at least two."""
    race = engine.from_dict(state)
    online = sum(1 for _, on in lineup.seats if on)
    if not lineup.host and (lineup.host_online or online < 2):
        # A host who left must not hold up the two or more people still in the room.
        raise HostOnly("Only the host can start the race.")
    if race.phase is not engine.Phase.LOBBY:
        raise Refused("This race has started already: after it, start a rematch.")
    bot = (
        [engine.Entrant(COMPUTER_SEAT, pace=params.get("bot_pace", 2))] if params.get("bot") else []
    )
    ordered = sorted(lineup.seats, key=lambda seat: (not seat[1], seat[0]))
    people = [engine.Entrant(seat, away=not online) for seat, online in ordered]
    entrants = people[: engine.MAX_RACERS - len(bot)] + bot
    if len(entrants) < engine.MIN_RACERS:
        raise Refused(
            "A race needs at least two racers: share the invite link, or add the Solver bot."
        )
    now = now_ms()
    try:
        race, events = engine.start(race, entrants, now, countdown_ms=countdown_ms())
    except GenerationError as error:
        raise Refused(_sentence(error)) from error
    return _applied(race, events, now, started=True)


def give_up(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    race, now = engine.from_dict(state), now_ms()
    try:
        race, events = engine.give_up(race, lineup.seat, now)
    except engine.RaceError as error:
        raise Refused(_sentence(error)) from error
    return _applied(race, events, now, mover=lineup.seat)


def leave(state: dict[str, Any], params: dict[str, Any], seat: int) -> tuple[str, Applied] | None:
    """A racer who leaves the room gives up (logged as `give_up`, as if they had pressed it);
    outside a race, or for someone not racing, leaving changes nothing."""
    race, now = engine.from_dict(state), now_ms()
    try:
        race, events = engine.give_up(race, seat, now)
    except engine.RaceError:
        return None
    return "give_up", _applied(race, events, now, mover=seat)


COMMANDS = {"start": start, "give_up": give_up}


def may_restart(state: dict[str, Any], params: dict[str, Any], asker: Restart) -> str | None:
    """A rematch wipes every racer's board: before the start or after the end anyone may ask for
    one, during the race only the host (to call it off)."""
    phase = engine.from_dict(state).phase
    if asker.host or phase in (engine.Phase.LOBBY, engine.Phase.OVER):
        return None
    return "The race is on: a rematch comes after it (only the host can call it off)."


def presence(
    state: dict[str, Any], params: dict[str, Any], seat: int, online: bool
) -> Applied | None:
    """A racer's last socket closed (the grace period starts) or one opened again."""
    race, now = engine.from_dict(state), now_ms()
    race, events = engine.set_away(race, seat, not online, now)
    return _applied(race, events, now) if events else None


# The clock ------------------------------------------------------------------------------------


def due(state: dict[str, Any], params: dict[str, Any]) -> float | None:
    at = engine.due(engine.from_dict(state))
    return None if at is None else at / 1000


def tick(state: dict[str, Any], params: dict[str, Any], now: float) -> Applied | None:
    at = round(now * 1000)
    race, events = engine.tick(engine.from_dict(state), at)
    return _applied(race, events, at) if events else None


# What the API shows ---------------------------------------------------------------------------

CELL_CHARS = {
    ms.CellState.HIDDEN: "#",
    ms.CellState.FLAGGED: "F",
    ms.CellState.MINE: "*",
    ms.CellState.EXPLODED: "!",
    ms.CellState.WRONG_FLAG: "X",
}
"""A racer's cell as the API's rows (and a replay's changes) write it, when not a number."""

ENDED = {
    engine.Standing.RACING: "Racing",
    engine.Standing.FINISHED: "Finished",
    engine.Standing.ELIMINATED: "Out (mine)",
    engine.Standing.GAVE_UP: "Gave up",
    engine.Standing.DNF: "Did not finish",
    engine.Standing.TIMED_OUT: "Out of time",
}
"""How each standing reads once the race is over (the results, and a replay's)."""

OUT = {
    engine.Standing.ELIMINATED: "hit a mine",
    engine.Standing.GAVE_UP: "gave up",
    engine.Standing.DNF: "away too long",
    engine.Standing.TIMED_OUT: "time is up",
    engine.Standing.FINISHED: "finished",
    engine.Standing.RACING: "racing",
}
"""Why a racer is out, as the narration and a replay's lines say it."""


def board_rows(racer: engine.Racer) -> list[str]:
    grid = racer.board.grid
    rows = []
    for y in range(grid.height):
        row = []
        for x in range(grid.width):
            shown, count = racer.cell_state(y * grid.width + x)
            row.append(
                ("_" if not count else str(count))
                if shown is ms.CellState.REVEALED
                else CELL_CHARS[shown]
            )
        rows.append("".join(row))
    return rows


def racer_facts(race: engine.Race, racer: engine.Racer, now: int) -> dict[str, Any]:
    """What anyone may know of a racer: never their board, only how far along they are."""
    return {
        "seat": racer.seat,
        "standing": racer.standing.value,
        "progress": racer.progress,
        "mines_hit": len(racer.hits),
        "frozen_ms": max(0, racer.frozen_until - now)
        if racer.frozen(now) and racer.frozen_until
        else 0,
        "time_ms": None
        if racer.finished_at is None or race.go_at is None
        else racer.finished_at - race.go_at,
        "away": racer.away_since is not None,
        "computer": racer.is_bot,
    }


def result_facts(result: engine.Result) -> dict[str, Any]:
    return {
        "seat": result.seat,
        "place": result.place,
        "standing": result.standing.value,
        "time_ms": result.time_ms,
        "mines_hit": result.mines_hit,
        "three_bv": result.three_bv,
        "bv_per_s": None if result.bv_per_s is None else rounded(result.bv_per_s),
        "clicks": result.clicks,
        "ioe": None if result.ioe is None else rounded(result.ioe),
        "progress": result.progress,
    }


def text_rows(
    state: dict[str, Any], params: dict[str, Any] | None = None, seat: int | None = None
) -> tuple[list[str], dict[str, Any]]:
    """A racer's own board (all hidden for anyone else: the boards share a seed, so any other
    board would leak mines), the phase, every racer's progress, and the results at the end."""
    race = engine.from_dict(state)
    grid = race.grid
    now = now_ms()
    mine = race.racer(seat) if seat is not None else None
    rows = board_rows(mine) if mine is not None else ["#" * grid.width] * grid.height
    extra: dict[str, Any] = {
        "width": grid.width,
        "height": grid.height,
        "mines_left": None if mine is None else mine.board.mines_left,
        "race": {
            "phase": race.phase.value,
            "go_in_ms": None if race.go_at is None else max(0, race.go_at - now),
            "you": None if mine is None else racer_facts(race, mine, now),
            "racers": [racer_facts(race, racer, now) for racer in race.racers],
            "results": [result_facts(r) for r in engine.results(race)] if race.is_over else None,
        },
    }
    return rows, extra


def changed_cells(applied: Applied) -> list[dict[str, Any]]:
    """The mover's own cells (a move changes no other board); a timed event's none (bots get a
    snapshot of their own board after it)."""
    mover = applied.summary.get("mover")
    race = applied.loaded(engine.from_dict)
    if mover is None:
        return []
    racer = race.racer(mover)
    assert racer is not None
    grid = race.grid
    out: list[dict[str, Any]] = []
    for event in applied.events:
        if isinstance(event, engine.BoardChanged) and event.seat == mover:
            out += (
                {"x": x, "y": y, "state": state.value, "count": count}
                for x, y, state, count in ms.changed_cell_values(grid, event.changes)
            )
    return out


def replay(
    params: Mapping[str, Any], seed: int, state: Mapping[str, Any], rows: list[Any]
) -> engine.Race:
    """A race rebuilt from its seed, the racers its start named and the layout it drew (both
    kept in `state`) and its move log: `rows` are (seat, action, x, y, Unix time in seconds) in
    order, the start first."""
    stored = engine.from_dict(state)
    log = [engine.Logged(seat, action, round(at * 1000), x, y) for seat, action, x, y, at in rows]
    return engine.replay_log(
        rules_of(params), seed, stored.entrants, log, stored.layout, countdown_ms()
    )


def grid(settings: dict[str, Any]) -> tuple[int, int]:
    """Every race of a room runs on the room's width and height."""
    return settings["width"], settings["height"]
