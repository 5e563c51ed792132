"""Minesweeper Flags (MSN's two-player variant): one pure function turns `(state, move)` into
`(new_state, events)`.

X moves first, then the players alternate. Revealing a mine claims it for the mover, who goes
again; a safe reveal opens as in Minesweeper (zeros flood) and passes the turn. The first to
more than half the mines wins, which is why the mine count must be odd: a tie is impossible.

Rules decided here, where MSN's own left room:
- Mines are placed by `new_game` from the seed, anywhere. There is no safe first click: finding
  mines is the point, and a first reveal that claims one is simply a good start.
- The bomb (one per player, only while strictly behind on score) opens the 5x5 square centred on
  a cell, clipped at the edges: each hidden mine in it is claimed by the bomber, each hidden
  safe cell is revealed, and revealed zeros flood as any reveal does, so a `_` never borders a
  hidden cell (MSN opened the 5x5 only; flooding keeps one meaning for every revealed zero, and
  the solver and players rely on it). A bomb always ends the turn, even when it claims mines,
  and one on a square with nothing hidden is refused rather than wasted.
- Players place no flags and chord nothing; revealing an open cell or a claimed mine is refused.
"""

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from types import MappingProxyType
from typing import Any

from .errors import GameOverError, InvalidBoardError, InvalidMoveError, ParseError
from .flood import flood
from .grid import Grid, check_mine_count
from .minesweeper import Minefield

BOMB_RADIUS = 2
"""The bomb opens the cells at most this many rows and columns from its centre: a 5x5 square."""


class Seat(Enum):
    X = "X"
    O = "O"  # noqa: E741 - the letter is the seat's own name

    @property
    def other(self) -> "Seat":
        return Seat.O if self is Seat.X else Seat.X


class Action(Enum):
    REVEAL = "reveal"
    BOMB = "bomb"


class Status(Enum):
    PLAYING = "playing"
    WON = "won"


class NotYourTurnError(InvalidMoveError):
    """A move by the seat that is not to move."""


class AlreadyRevealedError(InvalidMoveError):
    """A reveal on a cell that is already open or a mine already claimed."""


class BombRefusal(Enum):
    """Why a bomb was refused: the shell may word each one for the player."""

    USED = "already used"
    NOT_BEHIND = "not behind"
    NOTHING_HIDDEN = "nothing hidden"


class BombNotAllowedError(InvalidMoveError):
    """A bomb the rules refuse; `reason` says which rule."""

    def __init__(self, message: str, reason: BombRefusal) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Config:
    """16x16 with 51 mines is the standard game; any odd count that fits is allowed."""

    width: int = 16
    height: int = 16
    mines: int = 51

    def __post_init__(self) -> None:
        grid = Grid(self.width, self.height)  # validates the size
        check_mine_count(grid, self.mines, 1, grid.size)
        if self.mines % 2 == 0:
            raise InvalidBoardError(f"mines must be odd so that no game ties, got {self.mines}")

    @property
    def grid(self) -> Grid:
        return Grid(self.width, self.height)

    @property
    def to_win(self) -> int:
        """Mines a player needs: more than half."""
        return self.mines // 2 + 1


STANDARD = Config()


@dataclass(frozen=True, slots=True)
class Move:
    """`seat` says who moves, so a move out of turn is refused rather than silently re-owned."""

    action: Action
    x: int
    y: int
    seat: Seat


@dataclass(frozen=True, slots=True)
class CellsRevealed:
    """Safe cells a move opened, in cell order, with their counts (one event per cascade)."""

    seat: Seat
    cells: tuple[int, ...]
    counts: bytes


@dataclass(frozen=True, slots=True)
class MineClaimed:
    seat: Seat
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class BombUsed:
    """`seat` bombed the square centred on (x, y); the cells it opened follow as events."""

    seat: Seat
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """It is now `seat`'s turn."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class GameWon:
    winner: Seat
    score_x: int
    score_o: int


Event = CellsRevealed | MineClaimed | BombUsed | TurnPassed | GameWon


_NOTHING: Mapping[int, Seat] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class State:
    """A position. Build it with `new_game`, `apply_move`, `parse` or `from_dict`.

    Scores are derived from `claimed`; `winner` is set exactly when `status` is WON.
    """

    config: Config
    seed: int
    field: Minefield
    revealed: frozenset[int] = frozenset()
    """Safe cells open to both players."""
    claimed: Mapping[int, Seat] = _NOTHING
    """Claimed mine -> the seat that claimed it."""
    turn: Seat = Seat.X
    bombs_used: frozenset[Seat] = frozenset()
    status: Status = Status.PLAYING
    winner: Seat | None = None
    forfeited: Seat | None = None
    """The seat whose player left the game unfinished (`forfeit`): the other won."""

    @property
    def grid(self) -> Grid:
        return self.config.grid

    def score(self, seat: Seat) -> int:
        return sum(1 for owner in self.claimed.values() if owner is seat)

    @property
    def scores(self) -> dict[Seat, int]:
        return {seat: self.score(seat) for seat in Seat}

    def is_hidden(self, cell: int) -> bool:
        return cell not in self.revealed and cell not in self.claimed

    def can_bomb(self, seat: Seat) -> bool:
        """Whether `seat` still holds its bomb and is behind (turn and target aside)."""
        return seat not in self.bombs_used and self.score(seat) < self.score(seat.other)


def new_game(config: Config = STANDARD, seed: int = 0) -> State:
    """A fresh game, X to move. The mines are placed now, from the seed (no safe first click).

    `random.Random.sample` over a range is stable across platforms for a given seed.
    """
    grid = config.grid
    mines = random.Random(seed).sample(range(grid.size), config.mines)
    return State(config=config, seed=seed, field=Minefield.build(grid, mines))


def apply_move(state: State, move: Move) -> tuple[State, tuple[Event, ...]]:
    """The one entry point; raises a narrow InvalidMoveError when the rules refuse the move.

    Bad input (unknown action, a cell off the board) is reported before state refusals (game
    over, not your turn, already revealed, bomb not allowed), as tic-tac-toe does.
    """
    if not isinstance(move.action, Action):
        raise InvalidMoveError(f"unknown action {move.action!r}")
    for name, value in (("x", move.x), ("y", move.y)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidMoveError(f"{name} must be a whole number, got {value!r}")
    cell = state.grid.index(move.x, move.y)
    if not isinstance(move.seat, Seat):
        raise InvalidMoveError(f"seat must be Seat.X or Seat.O, got {move.seat!r}")
    where = f"{move.action.value} at ({move.x}, {move.y})"
    if state.status is not Status.PLAYING:
        assert state.winner is not None
        raise GameOverError(f"cannot {where}: the game is over ({state.winner.value} won)")
    if move.seat is not state.turn:
        raise NotYourTurnError(
            f"cannot {where} for {move.seat.value}: it is {state.turn.value}'s turn"
        )
    if move.action is Action.BOMB:
        return _bomb(state, cell, move.seat)
    return _reveal(state, cell, move.seat)


def time_out(state: State) -> tuple[State, tuple[Event, ...]]:
    """The player to move ran out of time (a room's turn timer): the turn passes, nothing else
    changes. The engine keeps no clock; the shell decides when time is up and logs it."""
    if state.status is not Status.PLAYING:
        assert state.winner is not None
        raise GameOverError(f"no turn to time out: the game is over ({state.winner.value} won)")
    passed = state.turn.other
    return replace(state, turn=passed), (TurnPassed(passed),)


def forfeit(state: State, seat: Seat) -> tuple[State, tuple[Event, ...]]:
    """`seat` loses an unfinished game by leaving it: the other seat wins, whatever the score.
    Whether the player really left is the shell's to judge; the rules record the result, so
    replays and history show it."""
    if state.status is not Status.PLAYING:
        assert state.winner is not None
        raise GameOverError(f"cannot forfeit: the game is over ({state.winner.value} won)")
    new = replace(state, status=Status.WON, winner=seat.other, forfeited=seat)
    return new, (GameWon(seat.other, new.score(Seat.X), new.score(Seat.O)),)


def replay(config: Config, seed: int, moves: Iterable[Move]) -> State:
    """Rebuild a game from its seed and move log."""
    state = new_game(config, seed)
    for move in moves:
        state, _ = apply_move(state, move)
    return state


def bomb_area(grid: Grid, cell: int) -> list[int]:
    """The 5x5 square centred on `cell`, clipped at the board's edges, in cell order."""
    x, y = grid.xy(cell)
    columns = range(max(x - BOMB_RADIUS, 0), min(x + BOMB_RADIUS, grid.width - 1) + 1)
    rows = range(max(y - BOMB_RADIUS, 0), min(y + BOMB_RADIUS, grid.height - 1) + 1)
    return [row * grid.width + column for row in rows for column in columns]


def _reveal(state: State, cell: int, seat: Seat) -> tuple[State, tuple[Event, ...]]:
    if not state.is_hidden(cell):
        x, y = state.grid.xy(cell)
        owner = state.claimed.get(cell)
        what = "open" if owner is None else f"a mine claimed by {owner.value}"
        raise AlreadyRevealedError(f"cell ({x}, {y}) is already {what}")
    claims = cell in state.field.mines  # a claim keeps the turn; a safe reveal passes it
    state, events = _open(state, [cell], seat)
    return _finish(state, seat, events, keep_turn=claims)


def _bomb(state: State, cell: int, seat: Seat) -> tuple[State, tuple[Event, ...]]:
    x, y = state.grid.xy(cell)
    if seat in state.bombs_used:
        raise BombNotAllowedError(
            f"cannot bomb at ({x}, {y}): {seat.value} has already used the bomb", BombRefusal.USED
        )
    mine, theirs = state.score(seat), state.score(seat.other)
    if mine >= theirs:
        raise BombNotAllowedError(
            f"cannot bomb at ({x}, {y}): {seat.value} is not behind ({mine} to {theirs}); "
            f"the bomb is only for the player behind",
            BombRefusal.NOT_BEHIND,
        )
    targets = [c for c in bomb_area(state.grid, cell) if state.is_hidden(c)]
    if not targets:
        raise BombNotAllowedError(
            f"cannot bomb at ({x}, {y}): nothing is hidden around it", BombRefusal.NOTHING_HIDDEN
        )
    state = replace(state, bombs_used=state.bombs_used | {seat})
    state, events = _open(state, targets, seat)
    return _finish(state, seat, [BombUsed(seat, x, y), *events], keep_turn=False)


def _open(state: State, targets: list[int], seat: Seat) -> tuple[State, list[Event]]:
    """Claim the mines among `targets` for `seat` and reveal the rest, flooding through zeros."""
    field, grid = state.field, state.grid
    mines = [t for t in targets if t in field.mines]
    safe = [t for t in targets if t not in field.mines]
    opened = flood(grid, field.counts, safe, state.revealed, field.mines) if safe else []
    claimed = {**state.claimed, **dict.fromkeys(mines, seat)}
    state = replace(state, revealed=state.revealed.union(opened), claimed=MappingProxyType(claimed))
    events: list[Event] = []
    if opened:
        counts = bytes(map(field.counts.__getitem__, opened))
        events.append(CellsRevealed(seat, tuple(opened), counts))
    events.extend(MineClaimed(seat, *grid.xy(mine)) for mine in mines)
    return state, events


def _finish(
    state: State, seat: Seat, events: list[Event], *, keep_turn: bool
) -> tuple[State, tuple[Event, ...]]:
    """Win on a majority of the mines; otherwise pass the turn unless the mover keeps it."""
    if state.score(seat) >= state.config.to_win:
        state = replace(state, status=Status.WON, winner=seat)
        events.append(GameWon(seat, state.score(Seat.X), state.score(Seat.O)))
    elif not keep_turn:
        state = replace(state, turn=seat.other)
        events.append(TurnPassed(seat.other))
    return state, tuple(events)


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every move the player to move may make: reveals of hidden cells, then bombs if allowed."""
    if state.status is not Status.PLAYING:
        return ()
    seat, grid = state.turn, state.grid
    hidden = [cell for cell in range(grid.size) if state.is_hidden(cell)]
    moves = [Move(Action.REVEAL, *grid.xy(cell), seat) for cell in hidden]
    if state.can_bomb(seat):
        moves += [
            Move(Action.BOMB, *grid.xy(cell), seat)
            for cell in range(grid.size)
            if any(state.is_hidden(c) for c in bomb_area(grid, cell))
        ]
    return tuple(moves)


def clues(state: State) -> dict[int, int]:
    """What both players see of the revealed cells: cell -> its count (the solver's input)."""
    counts = state.field.counts
    return {cell: counts[cell] for cell in state.revealed}


# Text form -----------------------------------------------------------------------------------
#
# Public (`rows`, `render`): `#` hidden, `_` / `1`-`8` revealed, `x` / `o` claimed by X / O.
# Full (`render_full`, read back by `parse`): the same, plus `*` a mine nobody has claimed.

_SEAT_CHARS = {Seat.X: "x", Seat.O: "o"}


def rows(state: State) -> tuple[str, ...]:
    """The board as both players see it, one string per row: the API's `board` field."""
    return _rows(state, full=False)


def render(state: State) -> str:
    return "\n".join(rows(state))


def render_full(state: State) -> str:
    """The whole truth, unclaimed mines included (never show this to a player mid-game)."""
    return "\n".join(_rows(state, full=True))


def _rows(state: State, *, full: bool) -> tuple[str, ...]:
    grid, field = state.grid, state.field

    def char(cell: int) -> str:
        if cell in state.revealed:
            return str(field.counts[cell]) if field.counts[cell] else "_"
        owner = state.claimed.get(cell)
        if owner is not None:
            return _SEAT_CHARS[owner]
        return "*" if full and cell in field.mines else "#"

    return tuple(
        "".join(char(y * grid.width + x) for x in range(grid.width)) for y in range(grid.height)
    )


def parse(
    text: str,
    *,
    turn: Seat = Seat.X,
    bombs_used: Iterable[Seat] = (),
    seed: int = 0,
) -> State:
    """Read the full view back into a state (for fixtures). Indentation and blank lines around
    the board are ignored; the mine count must be odd; digits must match the mines around them.
    Status and winner follow from the claims."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or len({len(line) for line in lines}) != 1:
        raise ParseError(f"a board needs rows of equal length, got {text!r}")
    grid = Grid(len(lines[0]), len(lines))
    mines: list[int] = []
    revealed: list[int] = []
    claimed: dict[int, Seat] = {}
    seats = {char: seat for seat, char in _SEAT_CHARS.items()}
    chars = "".join(lines)
    for cell, char in enumerate(chars):
        if char in "*xo":
            mines.append(cell)
            if char in seats:
                claimed[cell] = seats[char]
        elif char in "_12345678":
            revealed.append(cell)
        elif char != "#":
            raise ParseError(f"unknown character {char!r} at {grid.xy(cell)}: use # _ 1-8 * x o")
    field = Minefield.build(grid, mines)
    for cell in revealed:
        shown, expected = chars[cell], field.counts[cell]
        if shown != (str(expected) if expected else "_"):
            raise ParseError(f"{grid.xy(cell)} says {shown!r} but touches {expected} mines")
    try:
        config = Config(grid.width, grid.height, len(mines))
    except InvalidBoardError as error:
        raise ParseError(f"not a Flags board: {error}") from None
    state = State(config, seed, field, frozenset(revealed), MappingProxyType(claimed), turn)
    return _settle(replace(state, bombs_used=frozenset(bombs_used)))


def _settle(state: State) -> State:
    """Status and winner as the claims say; refuses two winners."""
    winners = [seat for seat in Seat if state.score(seat) >= state.config.to_win]
    if len(winners) > 1:
        raise ParseError("both seats hold more than half the mines")
    if not winners and state.forfeited is not None:
        return replace(state, status=Status.WON, winner=state.forfeited.other)
    if not winners:
        return replace(state, status=Status.PLAYING, winner=None)
    return replace(state, status=Status.WON, winner=winners[0])


# Storage form --------------------------------------------------------------------------------


def to_dict(state: State) -> dict[str, Any]:
    """A JSON-able form for storage; `from_dict` restores it exactly.

    The mines are stored, not regenerated from the seed, so a stored game survives any change
    to how `new_game` places them.
    """
    stored = {
        "v": 1,
        "width": state.config.width,
        "height": state.config.height,
        "mines": state.config.mines,
        "seed": state.seed,
        "field": sorted(state.field.mines),
        "revealed": sorted(state.revealed),
        "claimed": {
            seat.value: sorted(c for c, owner in state.claimed.items() if owner is seat)
            for seat in Seat
        },
        "turn": state.turn.value,
        "bombs_used": [seat.value for seat in Seat if seat in state.bombs_used],
        "status": state.status.value,
        "winner": None if state.winner is None else state.winner.value,
    }
    if state.forfeited is not None:  # only then, so games stored before forfeits read alike
        stored["forfeited"] = state.forfeited.value
    return stored


def from_dict(data: Mapping[str, Any]) -> State:
    """The inverse of `to_dict`; refuses a stored form whose parts contradict each other."""
    if data.get("v") != 1:
        raise ParseError(f"unknown stored Flags game version {data.get('v')!r}")
    try:
        config = Config(data["width"], data["height"], data["mines"])
        grid = config.grid
        field = Minefield.build(grid, _cells(data["field"], grid))
        claimed = {
            cell: Seat(seat)
            for seat, cells in data["claimed"].items()
            for cell in _cells(cells, grid)
        }
        state = State(
            config=config,
            seed=data["seed"],
            field=field,
            revealed=frozenset(_cells(data["revealed"], grid)),
            claimed=MappingProxyType(claimed),
            turn=Seat(data["turn"]),
            bombs_used=frozenset(Seat(seat) for seat in data["bombs_used"]),
            status=Status(data["status"]),
            winner=None if data["winner"] is None else Seat(data["winner"]),
            forfeited=None if data.get("forfeited") is None else Seat(data["forfeited"]),
        )
    except ParseError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ParseError(f"not a stored Flags game: {error!r}") from None
    _check_stored(state)
    return state


def _cells(values: Any, grid: Grid) -> list[int]:
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < grid.size for v in values
    ):
        raise ParseError(f"cells must be a list of cell numbers 0..{grid.size - 1}, got {values!r}")
    return values


def _check_stored(state: State) -> None:
    mines = state.field.mines
    if len(mines) != state.config.mines:
        raise ParseError(f"{len(mines)} mines stored for a game of {state.config.mines}")
    if not mines.issuperset(state.claimed) or not mines.isdisjoint(state.revealed):
        raise ParseError("claimed cells must be mines and revealed cells must be safe")
    if _settle(state) != state:
        raise ParseError("the stored status and winner do not match the claims")
