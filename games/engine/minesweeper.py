"""Minesweeper rules: one pure function turns `(state, move)` into `(new_state, events)`.

The state never changes in place; every move returns a new one. Randomness is the game's seed,
turned into a `random.Random` at the first reveal, so a game replays exactly from seed and moves.
"""

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from types import MappingProxyType

from .errors import GameOverError, InvalidBoardError, InvalidMoveError
from .flood import flood, open_area, zero_mask
from .generation import place_mines
from .grid import Grid, check_mine_count, mine_counts


class Action(Enum):
    REVEAL = "reveal"
    FLAG = "flag"
    CHORD = "chord"


class Status(Enum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class CellState(Enum):
    """What a player may see of one cell (the `data-state` of the cell markup)."""

    HIDDEN = "hidden"
    FLAGGED = "flagged"
    REVEALED = "revealed"
    MINE = "mine"
    EXPLODED = "exploded"
    WRONG_FLAG = "wrong-flag"


@dataclass(frozen=True, slots=True)
class Config:
    """Board parameters. Basic sanity here; `new_game` adds the first-click-safety rule."""

    width: int
    height: int
    mines: int
    no_guess: bool = False

    def __post_init__(self) -> None:
        grid = Grid(self.width, self.height)  # validates the size
        check_mine_count(grid, self.mines, 0, grid.size - 1)

    @property
    def grid(self) -> Grid:
        return Grid(self.width, self.height)

    @property
    def max_mines(self) -> int:
        return max_mines(self.width, self.height)


def max_mines(width: int, height: int) -> int:
    """Most mines a new game allows: every cell but the largest possible first-click opening.

    The first reveal never hits a mine or touches one, so the 3x3 block around it (smaller on
    boards under 3 cells wide or high) must stay free; a 1x1 board can therefore hold no mine.
    """
    grid = Grid(width, height)
    return grid.size - grid.largest_opening()


BEGINNER = Config(9, 9, 10)
INTERMEDIATE = Config(16, 16, 40)
EXPERT = Config(30, 16, 99)
PRESETS: Mapping[str, Config] = MappingProxyType(
    {"beginner": BEGINNER, "intermediate": INTERMEDIATE, "expert": EXPERT}
)


def board_title(width: int, height: int, mines: int) -> str:
    """A board's name as players know it: a preset by name and size ("Expert 30×16", its mines
    go without saying), any other "Custom 20×12 · 30 mines"."""
    shape = f"{width}×{height}"
    for name, preset in PRESETS.items():
        if (preset.width, preset.height, preset.mines) == (width, height, mines):
            return f"{name.capitalize()} {shape}"
    return f"Custom {shape} · {mines} mines"


@dataclass(frozen=True, slots=True)
class Minefield:
    """The hidden truth, fixed at the first reveal. Counts are derived once, for speed."""

    mines: frozenset[int]
    counts: bytes

    @classmethod
    def build(cls, grid: Grid, mines: Iterable[int]) -> "Minefield":
        frozen = frozenset(mines)
        return cls(frozen, mine_counts(grid, frozen))


@dataclass(frozen=True, slots=True)
class Move:
    action: Action
    x: int
    y: int
    player: int = 0


@dataclass(frozen=True, slots=True)
class CellChange:
    """One cell's new public state: the unit the web layer renders and broadcasts."""

    x: int
    y: int
    state: CellState
    count: int | None = None
    player: int | None = None


@dataclass(frozen=True, slots=True)
class CellsRevealed:
    """Cells a move opened, with their counts: one event for a whole cascade, because a
    100x100 flood would otherwise build ten thousand objects."""

    player: int
    cells: tuple[int, ...]
    counts: bytes

    def changes(self, grid: Grid) -> Iterator[CellChange]:
        for cell, count in zip(self.cells, self.counts, strict=True):
            x, y = grid.xy(cell)
            yield CellChange(x, y, CellState.REVEALED, count, self.player)


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The move by `player` at (x, y) won or lost the game."""

    status: Status
    player: int
    x: int
    y: int


Event = CellChange | CellsRevealed | GameEnded


def changed_cells(grid: Grid, events: Iterable[object]) -> Iterator[CellChange]:
    """Every cell a move changed, with its new public state: what the web layer renders."""
    for event in events:
        if isinstance(event, CellsRevealed):
            yield from event.changes(grid)
        elif isinstance(event, CellChange):
            yield event


def changed_cell_values(
    grid: Grid, events: Iterable[object]
) -> Iterator[tuple[int, int, CellState, int | None]]:
    """`changed_cells` as (x, y, state, count), a cascade's straight from its cell numbers and
    counts: a `CellChange` per cell of a large opening was a tenth of a busy room's CPU when
    the bots' JSON was made from them (docs/performance.md)."""
    width = grid.width
    for event in events:
        if isinstance(event, CellsRevealed):
            for cell, count in zip(event.cells, event.counts, strict=True):
                y, x = divmod(cell, width)
                yield x, y, CellState.REVEALED, count
        elif isinstance(event, CellChange):
            yield event.x, event.y, event.state, event.count


_NOTHING: Mapping[int, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GameState:
    config: Config
    seed: int
    field: Minefield | None = None
    revealed: Mapping[int, int] = _NOTHING
    """Revealed cell -> the player who revealed it."""
    flags: Mapping[int, int] = _NOTHING
    """Flagged cell -> the player who flagged it."""
    status: Status = Status.PLAYING
    exploded: frozenset[int] = frozenset()
    ended_by: int | None = None

    @property
    def grid(self) -> Grid:
        return self.config.grid

    @property
    def mines_left(self) -> int:
        """Mines minus flags, as the counter shows it (negative when over-flagged)."""
        if self.status is Status.WON:
            return 0
        return self.config.mines - len(self.flags)

    @property
    def is_over(self) -> bool:
        return self.status is not Status.PLAYING

    def cell_state(self, cell: int) -> tuple[CellState, int | None]:
        """The public view of one cell; hidden mines stay hidden while the game is on."""
        field = self.field
        if cell in self.revealed:
            assert field is not None
            return CellState.REVEALED, field.counts[cell]
        if self.status is Status.LOST:
            assert field is not None
            if cell in self.exploded:
                return CellState.EXPLODED, None
            is_mine = cell in field.mines
            if cell in self.flags:
                return (CellState.FLAGGED if is_mine else CellState.WRONG_FLAG), None
            return (CellState.MINE if is_mine else CellState.HIDDEN), None
        if cell in self.flags or (self.status is Status.WON and field and cell in field.mines):
            return CellState.FLAGGED, None
        return CellState.HIDDEN, None


def new_game(config: Config, seed: int) -> GameState:
    """A fresh game; mines are placed at the first reveal."""
    if config.max_mines < 1:
        raise InvalidBoardError(
            f"a {config.width}x{config.height} board is too small for mines: the first click "
            f"and its neighbours cover it"
        )
    if config.mines < 1 or config.mines > config.max_mines:
        raise InvalidBoardError(
            f"a {config.width}x{config.height} board takes 1 to {config.max_mines} mines "
            f"(the first click and its neighbours stay clear), got {config.mines}"
        )
    return GameState(config=config, seed=seed)


def apply_move(state: GameState, move: Move) -> tuple[GameState, tuple[Event, ...]]:
    """The one entry point. A legal move that changes nothing returns `(state, ())`."""
    if state.is_over:
        raise GameOverError(f"the game is over ({state.status.value}); start a new game to play")
    if not isinstance(move.action, Action):
        raise InvalidMoveError(f"unknown action {move.action!r}")
    for name, value in (("x", move.x), ("y", move.y)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidMoveError(f"{name} must be a whole number, got {value!r}")
    cell = state.grid.index(move.x, move.y)
    if move.action is Action.FLAG:
        return _toggle_flag(state, cell, move.player)
    if move.action is Action.CHORD or cell in state.revealed:
        return _chord(state, cell, move.player)
    return _reveal(state, cell, move.player)


def replay(config: Config, seed: int, moves: Iterable[Move]) -> GameState:
    """Rebuild a game from its seed and move log: the move log is the source of truth."""
    state = new_game(config, seed)
    for move in moves:
        state, _ = apply_move(state, move)
    return state


def _toggle_flag(state: GameState, cell: int, player: int) -> tuple[GameState, tuple[Event, ...]]:
    if cell in state.revealed:
        return state, ()
    x, y = state.grid.xy(cell)
    flags = dict(state.flags)
    if cell in flags:
        del flags[cell]
        change = CellChange(x, y, CellState.HIDDEN, player=player)
    else:
        flags[cell] = player
        change = CellChange(x, y, CellState.FLAGGED, player=player)
    return replace(state, flags=MappingProxyType(flags)), (change,)


def _reveal(state: GameState, cell: int, player: int) -> tuple[GameState, tuple[Event, ...]]:
    if cell in state.flags:
        return state, ()  # flags protect their cell from a stray click
    if state.field is None:
        rng = random.Random(state.seed)
        mines = place_mines(
            state.grid, state.config.mines, cell, rng, no_guess=state.config.no_guess
        )
        state = replace(state, field=Minefield.build(state.grid, mines))
    return _open(state, [cell], player, cell)


def _chord(state: GameState, cell: int, player: int) -> tuple[GameState, tuple[Event, ...]]:
    """On a revealed number whose adjacent flags match it, reveal every other hidden neighbour."""
    field = state.field
    if cell not in state.revealed or field is None or field.counts[cell] == 0:
        return state, ()
    neighbours = state.grid.neighbours(cell)
    if sum(1 for n in neighbours if n in state.flags) != field.counts[cell]:
        return state, ()
    targets = [n for n in neighbours if n not in state.flags and n not in state.revealed]
    if not targets:
        return state, ()
    return _open(state, targets, player, cell)


def _open(
    state: GameState, targets: list[int], player: int, origin: int
) -> tuple[GameState, tuple[Event, ...]]:
    """Reveal `targets` (flooding through zeros); a mine among them loses the game."""
    field = state.field
    assert field is not None
    grid = state.grid
    hits = frozenset(t for t in targets if t in field.mines)
    safe = [t for t in targets if t not in hits]
    opened = flood(grid, field.counts, safe, state.revealed, state.flags)
    revealed = {**state.revealed, **dict.fromkeys(opened, player)}
    state = replace(state, revealed=MappingProxyType(revealed))
    events: list[Event] = []
    if opened:
        counts = bytes(map(field.counts.__getitem__, opened))
        events.append(CellsRevealed(player, tuple(opened), counts))
    if hits:
        return _lose(state, hits, player, events)
    if len(revealed) == grid.size - len(field.mines):
        return _win(state, player, origin, events)
    return state, tuple(events)


def _lose(
    state: GameState, hits: frozenset[int], player: int, events: list[Event]
) -> tuple[GameState, tuple[Event, ...]]:
    field = state.field
    assert field is not None
    state = replace(state, status=Status.LOST, exploded=hits, ended_by=player)
    grid = state.grid
    uncovered = sorted(hits | field.mines.difference(state.flags) | set(state.flags))
    for cell in uncovered:
        shown, _ = state.cell_state(cell)
        if shown is not CellState.FLAGGED:  # correct flags keep their look
            x, y = grid.xy(cell)
            events.append(CellChange(x, y, shown, player=player if cell in hits else None))
    x, y = grid.xy(min(hits))
    events.append(GameEnded(Status.LOST, player, x, y))
    return state, tuple(events)


def _win(
    state: GameState, player: int, origin: int, events: list[Event]
) -> tuple[GameState, tuple[Event, ...]]:
    """Every safe cell is open: the remaining mines show as flags, as in the classic game."""
    field = state.field
    assert field is not None
    state = replace(state, status=Status.WON, ended_by=player)
    grid = state.grid
    for cell in sorted(field.mines.difference(state.flags)):
        x, y = grid.xy(cell)
        events.append(CellChange(x, y, CellState.FLAGGED))
    x, y = grid.xy(origin)
    events.append(GameEnded(Status.WON, player, x, y))
    return state, tuple(events)


def public_board(state: GameState) -> list[list[tuple[CellState, int | None]]]:
    """Every cell as a player may see it, row by row."""
    grid = state.grid
    return [
        [state.cell_state(y * grid.width + x) for x in range(grid.width)]
        for y in range(grid.height)
    ]


def three_bv(grid: Grid, field: Minefield) -> int:
    """Bechtel's Board Benchmark Value: the fewest clicks that clear the board.

    One click per opening (a connected region of zeros with its border), plus one per safe
    number that no opening reaches.
    """
    return sum(1 for _ in bv_clicks(grid, field))


def bv_clicks(grid: Grid, field: Minefield) -> Iterator[frozenset[int]]:
    """Each click 3BV counts, as the cells whose reveal achieves it: an opening (its zero cells
    and the numbered border they open; a wrong flag on the border keeps it from being done), or
    a lone number itself. One walk serves both 3BV and the 3BV a lost game solved
    (`stats.solved_three_bv`), so the two cannot disagree."""
    mask = zero_mask(field.counts, field.mines)  # shared, so each opening is walked once
    covered: set[int] = set()
    for cell in range(grid.size):
        if mask[cell] == 0:
            area = open_area(grid, mask, [cell])
            covered |= area
            yield frozenset(area)
    for cell in range(grid.size):
        if field.counts[cell] and cell not in field.mines and cell not in covered:
            yield frozenset((cell,))


def to_dict(
    state: GameState, previous: tuple[GameState, Mapping[str, object]] | None = None
) -> dict[str, object]:
    """A compact JSON-able form for storage; `from_dict` restores it exactly. `previous`: the
    state a move started from and its form, whose parts are reused where `state`'s are the
    very same objects (a flag leaves the revealed cells as they were, and grouping those was
    most of storing a move on an opened board). Forms are never changed in place."""
    before, stored = previous if previous is not None else (None, {})

    def part(name: str, make: Callable[[], object]) -> object:
        same = before is not None and getattr(before, name) is getattr(state, name)
        return stored[name] if same else make()

    field = state.field
    return {
        "v": 1,
        "width": state.config.width,
        "height": state.config.height,
        "mines": state.config.mines,
        "no_guess": state.config.no_guess,
        "seed": state.seed,
        "field": part("field", lambda: None if field is None else sorted(field.mines)),
        "revealed": part("revealed", lambda: _group_by_player(state.revealed)),
        "flags": part("flags", lambda: _group_by_player(state.flags)),
        "status": state.status.value,
        "exploded": part("exploded", lambda: sorted(state.exploded)),
        "ended_by": state.ended_by,
    }


def from_dict(data: Mapping[str, object]) -> GameState:
    if data.get("v") != 1:
        raise InvalidBoardError(f"unknown stored game version {data.get('v')!r}")
    config = Config(
        _int(data["width"]), _int(data["height"]), _int(data["mines"]), bool(data["no_guess"])
    )
    mines = data["field"]
    field = None if mines is None else _stored_field(config.grid, tuple(_ints(mines)))
    ended_by = data["ended_by"]
    return GameState(
        config=config,
        seed=_int(data["seed"]),
        field=field,
        revealed=_ungroup(data["revealed"]),
        flags=_ungroup(data["flags"]),
        status=Status(data["status"]),
        exploded=frozenset(_ints(data["exploded"])),
        ended_by=None if ended_by is None else _int(ended_by),
    )


@lru_cache(maxsize=256)
def _stored_field(grid: Grid, mines: tuple[int, ...]) -> Minefield:
    """A game is loaded again for every move, but its minefield never changes once placed, and
    counting every cell's neighbours is most of the loading (docs/performance.md). Minefields are immutable, so games with the same layout can share one."""
    return Minefield.build(grid, mines)


def _group_by_player(cells: Mapping[int, int]) -> dict[str, list[int]]:
    """{"0": [player 0's cells, ascending], ...}; runs on every move, so the lists are made
    first and filled by plain appends (twice as fast as `setdefault` per cell)."""
    grouped: dict[int, list[int]] = {player: [] for player in set(cells.values())}
    for cell, player in cells.items():
        grouped[player].append(cell)
    return {str(player): sorted(grouped[player]) for player in sorted(grouped)}


def _ungroup(grouped: object) -> Mapping[int, int]:
    assert isinstance(grouped, Mapping)
    cells: dict[int, int] = {}
    for player, group in grouped.items():
        cells.update(dict.fromkeys(_ints(group), int(player)))
    return MappingProxyType(cells)


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value


def _ints(values: object) -> list[int]:
    assert isinstance(values, list) and set(map(type, values)) <= {int}  # C-level: every move
    return values
