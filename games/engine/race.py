"""Minesweeper races: every racer plays their own copy of one seeded board.

A race is a lobby until the host starts it; the racers are named then. A countdown (3 s) follows,
then "Go": the same start cell is opened on every board, so nobody's first click is luckier.
Each racer's board is a plain Minesweeper game (`minesweeper.GameState`) that only they move on.
A mine costs a penalty (the board refuses moves until it passes) or, by the race's rules, puts
the racer out. The first to reveal every safe cell wins; the race is over when nobody is racing
any more (finished, out, gave up, gone too long) or at the time limit.

Time is an argument (`now`, milliseconds since any fixed epoch), never read here, so a race
replays from its seed, its racers and its move log with each move's time. Timed events (Go,
penalties ending, a racer away too long, the time limit, a computer racer's next move) happen in
`tick`, which the shell calls at `due`.
"""

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from types import MappingProxyType

from . import minesweeper as ms
from .errors import InvalidBoardError, InvalidMoveError
from .generation import place_mines
from .grid import Grid
from .minesweeper import Action, CellChange, CellsRevealed, CellState, Config, Minefield
from .solver import deduce
from .stats import seconds, three_bv

MIN_RACERS = 2
MAX_RACERS = 8
COUNTDOWN_MS = 3000
"""From the start to Go; the shell may pass another (tests shorten it: RACE_COUNTDOWN_MS)."""
GRACE_MS = 60_000
"""How long a racer whose connection dropped keeps their board before they are out (DNF)."""
LAYOUT_DRAWS = 10
"""Layouts drawn from the seed before one the start cell opens whole is kept anyway (`_layout`)."""


class RaceError(InvalidMoveError):
    """A move or command the race's state refuses now (before Go, frozen, finished)."""


class Phase(Enum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RACING = "racing"
    OVER = "over"


class Standing(Enum):
    """Where a racer stands: still racing, or how their race ended."""

    RACING = "racing"
    FINISHED = "finished"
    ELIMINATED = "eliminated"
    GAVE_UP = "gave-up"
    DNF = "dnf"
    """Away longer than the grace period."""
    TIMED_OUT = "timed-out"
    """Still racing at the time limit."""


@dataclass(frozen=True, slots=True)
class Rules:
    board: Config
    penalty_ms: int = 5000
    eliminate: bool = False
    """A mine puts the racer out instead of freezing their board for `penalty_ms`."""
    time_limit_ms: int | None = None
    """From Go; None: no limit."""

    def __post_init__(self) -> None:
        if not isinstance(self.penalty_ms, int) or not 0 <= self.penalty_ms <= 60_000:
            raise InvalidBoardError(f"penalty must be 0 to 60000 ms, got {self.penalty_ms!r}")
        limit = self.time_limit_ms
        if limit is not None and (not isinstance(limit, int) or limit < 1000):
            raise InvalidBoardError(f"time limit must be at least 1000 ms, got {limit!r}")


@dataclass(frozen=True, slots=True)
class Entrant:
    """A racer named at the start: a seat, and for a computer racer its pace (safe cells a
    second); `away` when their connection is down at the start (the grace period runs)."""

    seat: int
    pace: int | None = None
    away: bool = False


@dataclass(frozen=True, slots=True)
class Racer:
    seat: int
    board: ms.GameState
    hits: frozenset[int] = frozenset()
    """Mines this racer hit; with penalties they stay on the board, shown exploded, and count as
    known mines (they are kept among the board's flags, so chords count them)."""
    standing: Standing = Standing.RACING
    frozen_until: int | None = None
    away_since: int | None = None
    finished_at: int | None = None
    clicks: int = 0
    """Moves that changed the board, the start cell's opening included (everyone's first click)."""
    pace: int | None = None
    next_at: int | None = None
    """A computer racer's next move."""

    @property
    def is_racing(self) -> bool:
        return self.standing is Standing.RACING

    @property
    def is_bot(self) -> bool:
        return self.pace is not None

    def safe_cells(self) -> int:
        return self.board.grid.size - self.board.config.mines

    @property
    def progress(self) -> int:
        """Percent of the safe cells revealed, rounded down (100 only when all are)."""
        return 100 * len(self.board.revealed) // self.safe_cells()

    def frozen(self, now: int) -> bool:
        return self.frozen_until is not None and now < self.frozen_until

    def cell_state(self, cell: int) -> tuple[CellState, int | None]:
        """The cell as this racer sees it: a mine they hit stays shown as exploded."""
        if cell in self.hits:
            return CellState.EXPLODED, None
        return self.board.cell_state(cell)

    def done(self, cell: int) -> bool:
        """Whether a cell is done, the only thing other racers may see of it: revealed. Flags and
        hit mines are not done: showing them would tell the other racers where mines are."""
        return cell in self.board.revealed


@dataclass(frozen=True, slots=True)
class Race:
    rules: Rules
    seed: int
    phase: Phase = Phase.LOBBY
    racers: tuple[Racer, ...] = ()
    field: Minefield | None = None
    start: int | None = None
    """The cell opened for everyone at Go."""
    go_at: int | None = None
    ended_at: int | None = None
    entrants: tuple[Entrant, ...] = ()
    """The racers as the start named them: with the seed, what a replay starts from."""

    @property
    def grid(self) -> Grid:
        return self.rules.board.grid

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def layout(self) -> frozenset[int] | None:
        """The mines its start drew (None before it): what a replay starts from (`replay_log`)."""
        return None if self.field is None else self.field.mines

    def racer(self, seat: int) -> Racer | None:
        return next((racer for racer in self.racers if racer.seat == seat), None)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(racer.seat for racer in self.racers)

    @property
    def winner(self) -> int | None:
        finished = [r for r in self.racers if r.finished_at is not None]
        return min(finished, key=lambda r: (r.finished_at, r.seat)).seat if finished else None


# Events: what changed, for the shell to render -------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountdownStarted:
    go_at: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Went:
    """Go: the start cell is open on every board (each board's cells follow as `BoardChanged`)."""

    at: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class BoardChanged:
    """Cells of one racer's board: Minesweeper's events (`CellsRevealed`, `CellChange`)."""

    seat: int
    changes: tuple[ms.Event, ...]


@dataclass(frozen=True, slots=True)
class Penalised:
    seat: int
    until: int


@dataclass(frozen=True, slots=True)
class Thawed:
    seat: int


@dataclass(frozen=True, slots=True)
class Finished:
    seat: int
    time_ms: int


@dataclass(frozen=True, slots=True)
class Out:
    """A racer's race ended without finishing (`standing` says how)."""

    seat: int
    standing: Standing


@dataclass(frozen=True, slots=True)
class AwayChanged:
    seat: int
    away: bool


@dataclass(frozen=True, slots=True)
class RaceOver:
    at: int


Event = (
    CountdownStarted
    | Went
    | BoardChanged
    | Penalised
    | Thawed
    | Finished
    | Out
    | AwayChanged
    | RaceOver
)
Events = tuple[Event, ...]


def changed_seats(events: Iterable[object]) -> frozenset[int]:
    """Racers whose board or standing an event list touches."""
    return frozenset(
        event.seat
        for event in events
        if isinstance(event, BoardChanged | Penalised | Thawed | Finished | Out | AwayChanged)
    )


# The race ---------------------------------------------------------------------------------------


def new_race(rules: Rules, seed: int) -> Race:
    ms.new_game(rules.board, seed)  # validates the board's mine count
    return Race(rules, seed)


def start(
    race: Race,
    entrants: Sequence[Entrant],
    now: int,
    mines: Iterable[int] | None = None,
    countdown_ms: int = COUNTDOWN_MS,
) -> tuple[Race, Events]:
    """The countdown, with these racers. The start cell and the mines are drawn from the seed now
    (`mines` fixes a layout, for tests), so no-guess generation is done before Go."""
    if race.phase is not Phase.LOBBY:
        raise RaceError(f"the race has already started ({race.phase.value})")
    seats = [entrant.seat for entrant in entrants]
    if len(set(seats)) != len(seats):
        raise RaceError(f"a racer is named twice: {seats}")
    if not MIN_RACERS <= len(seats) <= MAX_RACERS:
        raise RaceError(f"a race takes {MIN_RACERS} to {MAX_RACERS} racers, got {len(seats)}")
    grid = race.grid
    rng = random.Random(race.seed)
    cell = _start_cell(grid, rng)
    if mines is None:
        mines = _layout(grid, race.rules.board, cell, rng)
    field = Minefield.build(grid, mines)
    if cell in field.mines or len(field.mines) != race.rules.board.mines:
        raise InvalidBoardError("the layout must have the board's mine count and a safe start")
    go_at = now + countdown_ms
    racers = tuple(
        Racer(
            seat=e.seat,
            board=replace(ms.new_game(race.rules.board, race.seed), field=field),
            pace=e.pace,
            away_since=go_at if e.away else None,
        )
        for e in entrants
    )
    race = replace(
        race,
        phase=Phase.COUNTDOWN,
        racers=racers,
        field=field,
        start=cell,
        go_at=go_at,
        entrants=tuple(entrants),
    )
    return race, (CountdownStarted(go_at, tuple(seats)),)


def _layout(grid: Grid, board: Config, start: int, rng: random.Random) -> frozenset[int]:
    """The mines, drawn from the seed, and never a layout the start cell opens whole (a 3BV of
    1) when the board allows another: Go would clear every board at once and end the race at
    0.0 with everyone tied (rare, but seen; docs/architecture.md). Only boards so dense that
    every safe cell touches the opening allow nothing else."""
    for _ in range(LAYOUT_DRAWS):
        mines = place_mines(grid, board.mines, start, rng, no_guess=board.no_guess)
        if three_bv(grid, Minefield.build(grid, mines)) > 1:
            break
    return mines


def _start_cell(grid: Grid, rng: random.Random) -> int:
    """A cell away from the edges where the board allows it, so the opening is a fair size."""
    xs = range(1, grid.width - 1) if grid.width > 2 else range(grid.width)
    ys = range(1, grid.height - 1) if grid.height > 2 else range(grid.height)
    return grid.index(rng.choice(xs), rng.choice(ys))


def move(race: Race, seat: int, action: Action, x: int, y: int, now: int) -> tuple[Race, Events]:
    """A racer's reveal, flag or chord on their own board. RaceError when their board cannot take
    it now; a move that changes nothing returns `(race, ())`."""
    racer = _racing(race, seat, now)
    if not isinstance(action, Action):
        raise InvalidMoveError(f"unknown action {action!r}")
    cell = race.grid.index(x, y)  # OutOfBoundsError off the board
    if action is Action.FLAG and cell in racer.hits:
        return race, ()  # a mine found the hard way stays marked
    board, changes = ms.apply_move(racer.board, ms.Move(action, x, y, seat))
    if not changes:
        return race, ()
    racer = replace(racer, clicks=racer.clicks + 1)
    if board.status is ms.Status.LOST:
        racer, events = _hit(race, racer, board, changes, now)
    else:
        racer, events = _moved(race, racer, board, changes, now)
    return _settle(_with(race, racer), events, now)


def _racing(race: Race, seat: int, now: int) -> Racer:
    racer = race.racer(seat)
    if race.phase is Phase.LOBBY:
        raise RaceError("the race has not started yet: the host starts it")
    if racer is None:
        raise RaceError("you are not racing in this race: watch until the next one")
    if race.phase is Phase.COUNTDOWN:
        raise RaceError("the race has not started yet: wait for Go")
    if race.phase is Phase.OVER:
        raise RaceError("the race is over")
    if racer.standing is Standing.FINISHED:
        raise RaceError("you have finished: watch the others")
    if not racer.is_racing:
        raise RaceError(f"you are out of this race ({racer.standing.value})")
    if racer.frozen(now):
        assert racer.frozen_until is not None
        raise RaceError(f"your board is frozen for {(racer.frozen_until - now) / 1000:.1f} s more")
    return racer


def _moved(
    race: Race, racer: Racer, board: ms.GameState, changes: tuple[ms.Event, ...], now: int
) -> tuple[Racer, list[Event]]:
    shown = tuple(e for e in changes if not isinstance(e, ms.GameEnded))
    racer = replace(racer, board=board)
    events: list[Event] = [BoardChanged(racer.seat, shown)]
    if board.status is ms.Status.WON:
        assert race.go_at is not None
        racer = replace(racer, standing=Standing.FINISHED, finished_at=now, frozen_until=None)
        events.append(Finished(racer.seat, now - race.go_at))
    return racer, events


def _hit(
    race: Race, racer: Racer, lost: ms.GameState, changes: tuple[ms.Event, ...], now: int
) -> tuple[Racer, list[Event]]:
    """A mine (or several, from a chord around a wrong flag): out, or a penalty."""
    hits = lost.exploded
    # The cells the move opened stay open; the mines hit become known mines on this board. The
    # other mines stay hidden, also for a racer put out: the layout is everyone's board.
    flags = {**lost.flags, **dict.fromkeys(hits, racer.seat)}
    board = replace(
        lost,
        status=ms.Status.PLAYING,
        exploded=frozenset(),
        ended_by=None,
        flags=MappingProxyType(flags),
    )
    opened = tuple(e for e in changes if isinstance(e, CellsRevealed))
    grid = race.grid
    marks = tuple(
        CellChange(*grid.xy(cell), CellState.EXPLODED, player=racer.seat) for cell in sorted(hits)
    )
    if race.rules.eliminate:
        racer = replace(racer, board=board, hits=racer.hits | hits, standing=Standing.ELIMINATED)
        return racer, [
            BoardChanged(racer.seat, opened + marks),
            Out(racer.seat, Standing.ELIMINATED),
        ]
    until = now + race.rules.penalty_ms
    racer = replace(racer, hits=racer.hits | hits, frozen_until=until)
    events: list[Event] = [BoardChanged(racer.seat, opened + marks), Penalised(racer.seat, until)]
    if len(board.revealed) == racer.safe_cells():  # a chord can open the last cells as it hits
        board, won = _won(board, racer.seat)
        racer = replace(racer, frozen_until=None)
        events.append(BoardChanged(racer.seat, won))
        assert race.go_at is not None
        racer = replace(racer, standing=Standing.FINISHED, finished_at=now)
        events.append(Finished(racer.seat, now - race.go_at))
    return replace(racer, board=board), events


def _won(board: ms.GameState, seat: int) -> tuple[ms.GameState, tuple[ms.Event, ...]]:
    """Every safe cell open: the remaining mines show flagged, as Minesweeper's win does."""
    assert board.field is not None
    grid = board.grid
    rest = sorted(board.field.mines.difference(board.flags))
    board = replace(board, status=ms.Status.WON, ended_by=seat)
    return board, tuple(CellChange(*grid.xy(c), CellState.FLAGGED) for c in rest)


def give_up(race: Race, seat: int, now: int) -> tuple[Race, Events]:
    racer = race.racer(seat)
    if racer is None or race.phase is not Phase.RACING or not racer.is_racing:
        raise RaceError("only a racer still racing can give up")
    racer = replace(racer, standing=Standing.GAVE_UP, frozen_until=None)
    return _settle(_with(race, racer), [Out(seat, Standing.GAVE_UP)], now)


def set_away(race: Race, seat: int, away: bool, now: int) -> tuple[Race, Events]:
    """A racer's connection dropped (`away`) or came back; nothing changes for others or once the
    racer's race has ended."""
    racer = race.racer(seat)
    if (
        racer is None
        or race.is_over
        or not racer.is_racing
        or (racer.away_since is not None) == away
    ):
        return race, ()
    racer = replace(racer, away_since=now if away else None)
    return _with(race, racer), (AwayChanged(seat, away),)


def _with(race: Race, racer: Racer) -> Race:
    racers = tuple(racer if r.seat == racer.seat else r for r in race.racers)
    return replace(race, racers=racers)


def _settle(race: Race, events: list[Event], now: int) -> tuple[Race, Events]:
    """The race ends when nobody is racing any more."""
    if race.phase is Phase.RACING and not any(r.is_racing for r in race.racers):
        race = replace(race, phase=Phase.OVER, ended_at=now)
        events.append(RaceOver(now))
    return race, tuple(events)


# Timed events -----------------------------------------------------------------------------------


def due(race: Race) -> int | None:
    """When the race's next timed event falls, or None."""
    if race.phase is Phase.COUNTDOWN:
        return race.go_at
    if race.phase is not Phase.RACING:
        return None
    assert race.go_at is not None
    times = [race.go_at + race.rules.time_limit_ms] if race.rules.time_limit_ms else []
    for racer in race.racers:
        if not racer.is_racing:
            continue
        if racer.frozen_until is not None:
            times.append(racer.frozen_until)
        if racer.away_since is not None:
            times.append(racer.away_since + GRACE_MS)
        if racer.next_at is not None:
            times.append(racer.next_at)
    return min(times, default=None)


def tick(race: Race, now: int) -> tuple[Race, Events]:
    """Everything due by `now`: Go, penalties ending, racers away too long (DNF), the time limit,
    one move of each computer racer whose turn it is."""
    events: list[Event] = []
    if race.phase is Phase.COUNTDOWN and race.go_at is not None and race.go_at <= now:
        race, went = _go(race)
        events.extend(went)
    if race.phase is not Phase.RACING or race.go_at is None:
        return race, tuple(events)
    go = race.go_at
    for seat in race.seats:
        racer = race.racer(seat)
        assert racer is not None
        if not racer.is_racing:
            continue
        if racer.away_since is not None and racer.away_since + GRACE_MS <= now:
            race = _with(race, replace(racer, standing=Standing.DNF, frozen_until=None))
            events.append(Out(seat, Standing.DNF))
        elif racer.frozen_until is not None and racer.frozen_until <= now:
            race = _with(race, replace(racer, frozen_until=None))
            events.append(Thawed(seat))
    limit = race.rules.time_limit_ms
    if limit is not None and go + limit <= now:
        for racer in race.racers:
            if racer.is_racing:
                race = _with(race, replace(racer, standing=Standing.TIMED_OUT, frozen_until=None))
                events.append(Out(racer.seat, Standing.TIMED_OUT))
    race, ended = _settle(race, events, now)
    events = list(ended)
    if race.phase is Phase.RACING:
        race, played = _bots(race, now)
        events.extend(played)
    return race, tuple(events)


def _go(race: Race) -> tuple[Race, list[Event]]:
    """Go: the start cell opened on every board, at the time Go was due (not when the tick ran),
    so every racer's clock starts at the same instant."""
    assert race.go_at is not None and race.start is not None
    go = race.go_at
    x, y = race.grid.xy(race.start)
    events: list[Event] = [Went(go, x, y)]
    racers = []
    for racer in race.racers:
        board, changes = ms.apply_move(racer.board, ms.Move(Action.REVEAL, x, y, racer.seat))
        next_at = go + _interval(racer.pace) if racer.is_bot else None
        racers.append(replace(racer, board=board, clicks=1, next_at=next_at))
        shown = tuple(e for e in changes if not isinstance(e, ms.GameEnded))
        events.append(BoardChanged(racer.seat, shown))
    race = replace(race, phase=Phase.RACING, racers=tuple(racers))
    finished = [r for r in race.racers if r.board.status is ms.Status.WON]  # a one-click board
    for racer in finished:
        race = _with(race, replace(racer, standing=Standing.FINISHED, finished_at=go))
        events.append(Finished(racer.seat, 0))
    race, settled = _settle(race, events, go)
    return race, list(settled)


def _interval(pace: int | None) -> int:
    assert pace is not None and pace > 0
    return 1000 // pace


def _bots(race: Race, now: int) -> tuple[Race, list[Event]]:
    events: list[Event] = []
    for racer in race.racers:
        current = race.racer(racer.seat)
        if current is None or not current.is_bot or not current.is_racing or race.is_over:
            continue
        if current.next_at is None or current.next_at > now or current.frozen(now):
            continue
        cell = bot_cell(current, race.seed)
        x, y = race.grid.xy(cell)
        race, played = move(race, current.seat, Action.REVEAL, x, y, now)
        events.extend(played)
        after = race.racer(current.seat)
        assert after is not None
        wait = max(now + _interval(after.pace), after.frozen_until or 0)
        race = _with(race, replace(after, next_at=wait if after.is_racing else None))
    return race, events


def bot_cell(racer: Racer, seed: int) -> int:
    """A computer racer's next cell, from its own public board only: the lowest cell its revealed
    numbers (and the mines it hit) prove safe, else a guess drawn from the seed and its clicks."""
    board = racer.board
    assert board.field is not None
    clues = {cell: board.field.counts[cell] for cell in board.revealed}
    safe = deduce(board.grid, clues, racer.hits, board.config.mines).safe.difference(board.flags)
    if safe:
        return min(safe)
    hidden = [c for c in range(board.grid.size) if c not in board.revealed and c not in board.flags]
    return random.Random(seed * 7919 + racer.seat * 31 + racer.clicks).choice(hidden)


# Results ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    seat: int
    place: int
    standing: Standing
    time_ms: int | None
    """From Go to the last safe cell; None for a racer who did not finish."""
    mines_hit: int
    three_bv: int
    clicks: int
    progress: int

    @property
    def time_s(self) -> float | None:
        return seconds(self.time_ms)

    @property
    def bv_per_s(self) -> float | None:
        seconds = self.time_s
        return self.three_bv / seconds if seconds else None

    @property
    def ioe(self) -> float | None:
        """3BV ÷ clicks, for a finished board (an unfinished one has not earned its 3BV)."""
        if self.time_ms is None or not self.clicks:
            return None
        return self.three_bv / self.clicks


def _ranked(race: Race) -> list[tuple[Racer, int]]:
    """Every racer with their place: finishers by time, then the rest by progress (fewer mines
    hit first on a tie); equal times or equal (progress, mines) share a place."""

    def key(racer: Racer) -> tuple[int, int, int]:
        if racer.finished_at is not None:
            return (0, racer.finished_at, 0)
        return (1, -len(racer.board.revealed), len(racer.hits))

    ordered = sorted(race.racers, key=lambda r: (key(r), r.seat))
    ranked: list[tuple[Racer, int]] = []
    for index, racer in enumerate(ordered):
        tied = index > 0 and key(ordered[index - 1]) == key(racer)
        ranked.append((racer, ranked[-1][1] if tied else index + 1))
    return ranked


def results(race: Race) -> tuple[Result, ...]:
    """Every racer by place (`_ranked`), with the board's 3BV and their own figures."""
    if race.field is None:
        return ()
    bv = three_bv(race.grid, race.field)
    go = race.go_at or 0
    return tuple(
        Result(
            racer.seat,
            place,
            racer.standing,
            None if racer.finished_at is None else racer.finished_at - go,
            len(racer.hits),
            bv,
            racer.clicks,
            racer.progress,
        )
        for racer, place in _ranked(race)
    )


def places(race: Race) -> dict[int, int]:
    """Each racer's place as things stand (final once the race is over): cheap enough for
    every move (no 3BV)."""
    return {racer.seat: place for racer, place in _ranked(race)}


# Replay -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Logged:
    """One row of a race's move log: `action` is a Minesweeper action, "give_up", "away",
    "back" or "tick"; `at` its time."""

    seat: int
    action: str
    at: int
    x: int | None = None
    y: int | None = None


def replay(started: Race, log: Sequence[Logged]) -> Race:
    """The race after `log`, from the race as its start left it (the racers named, the layout
    drawn from the seed): moves and ticks played again at their logged times."""
    race = started
    for row in log:
        race, _ = apply_logged(race, row)
    return race


SLACK_MS = 1000
"""How far a logged time may trail the time the rules used. The shell now stamps a move's row
with the rules' own time (so replays match to the millisecond); older logs were stamped a little
after the rules ran, so a move logged just as a penalty ended (or a Go logged just after it fell
due) may read as a hair early against times the replay itself derived from stamps."""


def replay_log(
    rules: Rules,
    seed: int,
    entrants: Sequence[Entrant],
    log: Sequence[Logged],
    mines: Iterable[int] | None = None,
    countdown_ms: int = COUNTDOWN_MS,
) -> Race:
    """A race rebuilt from its seed, its racers and its whole move log (its first row the start):
    the same boards, standings, places and times (to the ms, when each row carries the time its
    rules used). `mines`: the layout its start drew, kept in its state, so a replay does not
    depend on how this version draws layouts (`_layout`); None draws it from the seed again."""
    *_, (race, _) = replay_rows(rules, seed, entrants, log, mines, countdown_ms)
    return race


def replay_rows(
    rules: Rules,
    seed: int,
    entrants: Sequence[Entrant],
    log: Sequence[Logged],
    mines: Iterable[int] | None = None,
    countdown_ms: int = COUNTDOWN_MS,
) -> Iterator[tuple[Race, Events]]:
    """`replay_log` one row at a time: the race and its events after each row, the start first
    (a replay page shows every position without replaying the log again for each)."""
    if not log or log[0].action != "start":
        raise InvalidMoveError("a race's log starts with its start")
    race, events = start(new_race(rules, seed), entrants, log[0].at, mines, countdown_ms)
    yield race, events
    for row in log[1:]:
        race, events = apply_logged(race, _nudged(race, row))
        yield race, events


def _nudged(race: Race, row: Logged) -> Logged:
    """`row` at the time its event needed, when that is within `SLACK_MS` after its stamp."""
    if row.action == "tick":
        at = due(race)
        return replace(row, at=at) if at is not None and 0 < at - row.at <= SLACK_MS else row
    racer = race.racer(row.seat)
    until = None if racer is None or not racer.frozen(row.at) else racer.frozen_until
    if until is not None and until - row.at <= SLACK_MS:
        return replace(row, at=until)
    return row


def apply_logged(race: Race, row: Logged) -> tuple[Race, Events]:
    if row.action == "tick":
        return tick(race, row.at)
    if row.action == "give_up":
        return give_up(race, row.seat, row.at)
    if row.action in ("away", "back"):
        return set_away(race, row.seat, row.action == "away", row.at)
    if row.x is None or row.y is None:
        raise InvalidMoveError(f"a {row.action!r} needs x and y")
    return move(race, row.seat, Action(row.action), row.x, row.y, row.at)


# Storage ----------------------------------------------------------------------------------------


def to_dict(race: Race) -> dict[str, object]:
    """A JSON-able form: the layout once, and per racer only what is theirs."""
    board = race.rules.board
    return {
        "v": 1,
        "width": board.width,
        "height": board.height,
        "mines": board.mines,
        "no_guess": board.no_guess,
        "penalty_ms": race.rules.penalty_ms,
        "eliminate": race.rules.eliminate,
        "time_limit_ms": race.rules.time_limit_ms,
        "seed": race.seed,
        "phase": race.phase.value,
        "field": None if race.field is None else sorted(race.field.mines),
        "start": race.start,
        "go_at": race.go_at,
        "ended_at": race.ended_at,
        "racers": [_racer_dict(racer) for racer in race.racers],
        "entrants": [[e.seat, e.pace, e.away] for e in race.entrants],
    }


def _racer_dict(racer: Racer) -> dict[str, object]:
    board = racer.board
    return {
        "seat": racer.seat,
        "revealed": sorted(board.revealed),
        "flags": sorted(c for c in board.flags if c not in racer.hits),
        "hits": sorted(racer.hits),
        "status": board.status.value,
        "standing": racer.standing.value,
        "frozen_until": racer.frozen_until,
        "away_since": racer.away_since,
        "finished_at": racer.finished_at,
        "clicks": racer.clicks,
        "pace": racer.pace,
        "next_at": racer.next_at,
    }


def from_dict(data: Mapping[str, object]) -> Race:
    if data.get("v") != 1:
        raise InvalidBoardError(f"unknown stored race version {data.get('v')!r}")
    config = Config(
        _int(data["width"]), _int(data["height"]), _int(data["mines"]), bool(data["no_guess"])
    )
    limit = data["time_limit_ms"]
    rules = Rules(
        config,
        _int(data["penalty_ms"]),
        bool(data["eliminate"]),
        None if limit is None else _int(limit),
    )
    seed = _int(data["seed"])
    mines = data["field"]
    field = None if mines is None else ms._stored_field(config.grid, tuple(_ints(mines)))
    racers = data["racers"]
    assert isinstance(racers, list)
    return Race(
        rules=rules,
        seed=seed,
        phase=Phase(data["phase"]),
        racers=tuple(_racer_from(r, config, seed, field) for r in racers),
        field=field,
        start=_opt(data["start"]),
        go_at=_opt(data["go_at"]),
        ended_at=_opt(data["ended_at"]),
        entrants=tuple(_entrant(e) for e in _list(data.get("entrants", []))),
    )


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise InvalidBoardError(f"expected a list, got {value!r}")
    return value


def _entrant(value: object) -> Entrant:
    seat, pace, away = _list(value)
    return Entrant(_int(seat), _opt(pace), bool(away))


def _racer_from(
    data: Mapping[str, object], config: Config, seed: int, field: Minefield | None
) -> Racer:
    seat = _int(data["seat"])
    hits = frozenset(_ints(data["hits"]))
    status = ms.Status(data["status"])
    flags = dict.fromkeys(_ints(data["flags"]), seat)
    if status is not ms.Status.LOST:
        flags.update(dict.fromkeys(hits, seat))  # with penalties, hit mines stand as known mines
    board = ms.GameState(
        config=config,
        seed=seed,
        field=field,
        revealed=MappingProxyType(dict.fromkeys(_ints(data["revealed"]), seat)),
        flags=MappingProxyType(flags),
        status=status,
        exploded=hits if status is ms.Status.LOST else frozenset(),
        ended_by=seat if status is not ms.Status.PLAYING else None,
    )
    return Racer(
        seat=seat,
        board=board,
        hits=hits,
        standing=Standing(data["standing"]),
        frozen_until=_opt(data["frozen_until"]),
        away_since=_opt(data["away_since"]),
        finished_at=_opt(data["finished_at"]),
        clicks=_int(data["clicks"]),
        pace=_opt(data["pace"]),
        next_at=_opt(data["next_at"]),
    )


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidBoardError(f"expected a whole number, got {value!r}")
    return value


def _opt(value: object) -> int | None:
    return None if value is None else _int(value)


def _ints(values: object) -> list[int]:
    if not isinstance(values, list):
        raise InvalidBoardError(f"expected a list of whole numbers, got {values!r}")
    return [_int(v) for v in values]
