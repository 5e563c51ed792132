"""Game statistics and replay positions, rebuilt from a game's seed and move log.

The move log is the source of truth (docs/contracts.md, "Statistics"): nothing here is
stored alongside a game, so a change to a definition applies to every game played so far.
`game_stats` replays the log once and counts; `replay` replays it once and keeps what each move
changed, so any position can be shown without replaying from the start.
"""

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .grid import Grid
from .minesweeper import (
    Action,
    CellChange,
    CellsRevealed,
    CellState,
    Config,
    Event,
    GameEnded,
    GameState,
    Minefield,
    Move,
    Status,
    apply_move,
    bv_clicks,
    new_game,
    three_bv,
)

__all__ = [
    "GameStats",
    "LoggedMove",
    "PlayerStats",
    "Replay",
    "game_stats",
    "replay",
    "replay_from",
    "rounded",
    "seconds",
    "solved_three_bv",
    "Tally",
    "stats_at_end",
    "stats_from",
    "three_bv",
]

_HUNDREDTH = Decimal("0.01")


def rounded(value: float) -> float:
    """A figure (3BV/s, IOE, seconds) to 0.01, a half rounded up, as every page, the API and
    the records show it (docs/api.md, "Figures"). It rounds the decimal the float prints as
    (`repr`), not its binary value, so 0.845 gives 0.85 as a reader expects; and rounding an
    already rounded figure again changes nothing, so no two views can differ by a digit."""
    return float(Decimal(repr(value)).quantize(_HUNDREDTH, rounding=ROUND_HALF_UP))


def seconds(ms: int | None) -> float | None:
    """A time in milliseconds as the seconds shown, to 0.01 s (`rounded`'s rule, exactly)."""
    if ms is None:
        return None
    return float(Decimal(ms).scaleb(-3).quantize(_HUNDREDTH, rounding=ROUND_HALF_UP))


def solved_three_bv(grid: Grid, field: Minefield, revealed: Collection[int]) -> int:
    """The part of the board's 3BV that `revealed` achieved (the community's "3BV solved",
    as minesweeper.online and Arbiter count it): an opening counts once all of its cells, its
    zeros and their numbered border, are revealed, a lone number (one no opening reaches) once it is revealed. A number on an
    opening's border opened by hand before the opening counts for nothing on its own. Equal
    to `three_bv` exactly when every safe cell is revealed."""
    return _solved(bv_clicks(grid, field), revealed)


def _solved(clicks: Iterable[frozenset[int]], revealed: Collection[int]) -> int:
    """How many of 3BV's `clicks` (`bv_clicks`) the `revealed` cells achieved."""
    return sum(1 for click in clicks if all(c in revealed for c in click))


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One row of a game's move log, as the shell stores it.

    `at_ms` is when the move arrived, in milliseconds from any fixed epoch (the same for every
    move of a game); None when the time is unknown, which leaves the game's time unknown too.
    """

    seat: int
    action: Action | str
    x: int
    y: int
    at_ms: int | None = None

    def move(self) -> Move:
        return Move(Action(self.action), self.x, self.y, self.seat)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    seat: int
    clicks: int
    """Moves of this seat the game accepted (a move that changed nothing is not a click)."""
    cells_revealed: int
    """Safe cells this seat opened, cascades included."""
    right_flags: int
    """Flags of this seat standing on a mine at the game's end."""
    wrong_flags: int
    """Flags of this seat standing on a safe cell at the game's end."""
    hit_mine: bool


@dataclass(frozen=True, slots=True)
class GameStats:
    status: Status
    three_bv: int | None
    """On the final layout; None when no cell was ever revealed (no mines were placed)."""
    solved_three_bv: int | None
    """The part of `three_bv` the players achieved (all of it in a won game)."""
    clicks: int
    time_ms: int | None
    """From the first accepted reveal to the last accepted move; None without times."""
    hit_by: int | None
    """The seat whose move hit a mine, in a lost game."""
    players: tuple[PlayerStats, ...]
    """One per seat that sent a move, by seat."""

    @property
    def time_s(self) -> float | None:
        """The game's time to 0.01 s, as shown and as 3BV/s divides by."""
        return seconds(self.time_ms)

    @property
    def bv_per_s(self) -> float | None:
        """Solved 3BV ÷ time (a lost game is judged on what it cleared, not the whole board);
        None when either is unknown or the time shows as 0.00 s."""
        time_s = self.time_s
        if self.solved_three_bv is None or not time_s:
            return None
        return self.solved_three_bv / time_s

    @property
    def ioe(self) -> float | None:
        """Solved 3BV ÷ clicks (above 1 when chords saved clicks); None before any click."""
        if self.solved_three_bv is None or not self.clicks:
            return None
        return self.solved_three_bv / self.clicks


def game_stats(config: Config, seed: int, moves: Sequence[LoggedMove]) -> GameStats:
    """The statistics of the game that `moves` played from `new_game(config, seed)`.

    A move the engine refuses (after the end, off the board) raises its `EngineError`: a stored
    log holds accepted moves only, so a refusal means the log and the engine disagree.
    """
    return stats_from(new_game(config, seed), moves)


def stats_from(start: GameState, moves: Sequence[LoggedMove]) -> GameStats:
    """As `game_stats`, from any starting state (tests start from a fixed layout)."""
    return Tally(start).add(moves).stats()


def stats_at_end(start: GameState, end: GameState, moves: Sequence[LoggedMove]) -> GameStats:
    """`stats_from(start, moves)` for a log that led from `start` to `end` and holds only moves
    that changed the game (the shell logs no other), without playing every move again: each
    is a click, and the clock starts at the first reveal, which opens cells whenever the mines
    are placed at it; from a layout placed beforehand, the moves up to the first that opened
    cells are played. A finished game's banner replayed its whole log once the game ended
    (costs in docs/performance.md). A played move that changes nothing breaks the premise:
    then the whole log is played, as `stats_from` does."""
    first_reveal = None
    if start.field is None:  # the first reveal places the mines clear of itself and opens cells
        first_reveal = next((m.at_ms for m in moves if Action(m.action) is Action.REVEAL), None)
    else:  # a layout placed beforehand (tests): the first reveal may hit a mine
        state = start
        for logged in moves:
            state, events = apply_move(state, logged.move())
            if not events:
                return stats_from(start, moves)
            if any(isinstance(event, CellsRevealed) for event in events):
                first_reveal = logged.at_ms
                break
    clicks: dict[int, int] = {}
    for logged in moves:
        clicks[logged.seat] = clicks.get(logged.seat, 0) + 1
    timed = all(logged.at_ms is not None for logged in moves)
    last_move = moves[-1].at_ms if moves else None
    return Tally(end, tuple(clicks.items()), first_reveal, last_move, timed).stats()


@dataclass(frozen=True, slots=True)
class Tally:
    """What the statistics count move by move, up to some move of a game: kept, later moves
    are added without replaying the earlier ones (a long game under way, issue 26)."""

    state: GameState
    clicks: tuple[tuple[int, int], ...] = ()
    """(seat, accepted moves) for every seat that sent a move, in order of first move."""
    first_reveal: int | None = None
    last_move: int | None = None
    timed: bool = True

    def add(self, moves: Sequence[LoggedMove]) -> "Tally":
        clicks = dict(self.clicks)
        first_reveal, last_move, timed = self.first_reveal, self.last_move, self.timed
        state = self.state
        for logged in moves:
            state, events = apply_move(state, logged.move())
            clicks.setdefault(logged.seat, 0)
            if not events:
                continue
            clicks[logged.seat] += 1
            timed = timed and logged.at_ms is not None
            last_move = logged.at_ms
            if first_reveal is None and any(isinstance(e, CellsRevealed) for e in events):
                first_reveal = logged.at_ms
        return Tally(state, tuple(clicks.items()), first_reveal, last_move, timed)

    def stats(self) -> GameStats:
        state, clicks = self.state, dict(self.clicks)
        time_ms = None
        if self.timed and self.first_reveal is not None and self.last_move is not None:
            time_ms = self.last_move - self.first_reveal
        field = state.field
        bv = None if field is None else list(bv_clicks(state.grid, field))  # one walk for both
        return GameStats(
            status=state.status,
            three_bv=None if bv is None else len(bv),
            solved_three_bv=None if bv is None else _solved(bv, state.revealed),
            clicks=sum(clicks.values()),
            time_ms=time_ms,
            hit_by=state.ended_by if state.status is Status.LOST else None,
            players=tuple(_player(state, seat, clicks[seat]) for seat in sorted(clicks)),
        )


def _player(state: GameState, seat: int, clicks: int) -> PlayerStats:
    mines = state.field.mines if state.field is not None else frozenset()
    flags = [cell for cell, flagger in state.flags.items() if flagger == seat]
    right = sum(1 for cell in flags if cell in mines)
    # Flags set before the first reveal, in a game that never had one, stand on no layout:
    # neither right nor wrong.
    wrong = len(flags) - right if state.field is not None else 0
    return PlayerStats(
        seat=seat,
        clicks=clicks,
        cells_revealed=sum(1 for revealer in state.revealed.values() if revealer == seat),
        right_flags=right,
        wrong_flags=wrong,
        hit_mine=state.status is Status.LOST and state.ended_by == seat,
    )


# Replay positions ------------------------------------------------------------------------------

CHECKPOINT_EVERY = 32
"""Moves between full snapshots: a position costs one copy and at most 31 diffs to apply."""

_CHARS = {
    CellState.HIDDEN: ord("#"),
    CellState.FLAGGED: ord("F"),
    CellState.MINE: ord("*"),
    CellState.EXPLODED: ord("!"),
    CellState.WRONG_FLAG: ord("X"),
}
_DIGITS = b"_12345678"


@dataclass(frozen=True, slots=True)
class _Diff:
    """The cells one move changed and their new characters (the ASCII public view)."""

    cells: tuple[int, ...]
    chars: bytes

    def apply(self, board: bytearray) -> None:
        for cell, char in zip(self.cells, self.chars, strict=True):
            board[cell] = char


_NO_DIFF = _Diff((), b"")


@dataclass(frozen=True, slots=True)
class Replay:
    """Every position of one game, from the empty board (0) to after its last move (`moves`).

    The end of a finished game is kept apart (`ending`): the mines it uncovers, or the flags a
    win puts on the remaining mines, show only when asked for (`show_mines`), never earlier.
    """

    grid: Grid
    status: Status
    times: tuple[int | None, ...]
    """Each move's `at_ms`, for playing the replay back at its own pace."""
    diffs: tuple[_Diff, ...]
    checkpoints: tuple[bytes, ...]
    """The board after moves 0, 32, 64, ... (the ending left out)."""
    ending: _Diff
    state: GameState | None = None
    """The game after the last move, from which later moves replay (`replay_from`)."""

    @property
    def moves(self) -> int:
        return len(self.diffs)

    def position(self, k: int, *, show_mines: bool = False) -> bytes:
        """The public board after `k` moves, one ASCII character a cell, row by row."""
        if not 0 <= k <= self.moves:
            raise IndexError(f"position {k} is outside 0..{self.moves}")
        base, rest = divmod(k, CHECKPOINT_EVERY)
        board = bytearray(self.checkpoints[base])
        for diff in self.diffs[k - rest : k]:
            diff.apply(board)
        if show_mines and k == self.moves:
            self.ending.apply(board)
        return bytes(board)

    def public_rows(self, k: int, *, show_mines: bool = False) -> tuple[str, ...]:
        """The position as text rows: `#` hidden, `F` flag, `_` and `1`-`8` revealed; with
        `show_mines` at the end of a finished game also `*` mine, `!` exploded, `X` wrong flag
        (the same text as `games.engine.ascii.render` of the final state)."""
        board = self.position(k, show_mines=show_mines).decode("ascii")
        width = self.grid.width
        return tuple(board[start : start + width] for start in range(0, len(board), width))


def replay(config: Config, seed: int, moves: Sequence[LoggedMove]) -> Replay:
    """Replay `moves` from `new_game(config, seed)` once, keeping what each move changed."""
    return replay_from(new_game(config, seed), moves)


def replay_from(start: GameState, moves: Sequence[LoggedMove]) -> Replay:
    """As `replay`, from any starting state (tests start from a fixed layout)."""
    grid = start.grid
    board = bytearray(_board_of(start))
    checkpoints = [bytes(board)]
    diffs: list[_Diff] = []
    ending = _NO_DIFF
    state = start
    for logged in moves:
        state, events = apply_move(state, logged.move())
        diff, ending = _diffs_of(grid, events)
        diff.apply(board)
        diffs.append(diff)
        if len(diffs) % CHECKPOINT_EVERY == 0:
            checkpoints.append(bytes(board))
    return Replay(
        grid=grid,
        status=state.status,
        times=tuple(logged.at_ms for logged in moves),
        diffs=tuple(diffs),
        checkpoints=tuple(checkpoints),
        ending=ending if state.is_over else _NO_DIFF,
        state=state,
    )


def _board_of(state: GameState) -> bytes:
    """The public view of a state still being played (a replay's starting point)."""
    chars = bytearray()
    for cell in range(state.grid.size):
        shown, count = state.cell_state(cell)
        chars.append(_DIGITS[count or 0] if shown is CellState.REVEALED else _CHARS[shown])
    return bytes(chars)


def _diffs_of(grid: Grid, events: tuple[Event, ...]) -> tuple[_Diff, _Diff]:
    """The move's own changes, and those its game's end adds: a move that ends the game emits
    only its reveals before the ending's cell changes, so every `CellChange` beside a
    `GameEnded` belongs to the ending."""
    ends = any(isinstance(event, GameEnded) for event in events)
    cells: list[int] = []
    chars = bytearray()
    end_cells: list[int] = []
    end_chars = bytearray()
    for event in events:
        if isinstance(event, CellsRevealed):
            cells.extend(event.cells)
            chars.extend(_DIGITS[count] for count in event.counts)
        elif isinstance(event, CellChange):
            target, out = (end_cells, end_chars) if ends else (cells, chars)
            target.append(grid.index(event.x, event.y))
            out.append(_CHARS[event.state])
    return _Diff(tuple(cells), bytes(chars)), _Diff(tuple(end_cells), bytes(end_chars))
