"""The text form of a board: the terminal's view, the debug view and the test-fixture format.

Public view (`render`), what a player may see:
    `#` hidden   `F` flag   `_` revealed zero   `1`-`8` revealed number
    and, once a game is lost: `*` mine, `!` the exploded mine, `X` a wrong flag
    (correct flags stay `F`; once a game is won every mine shows as `F`).

Full view (`render_full`, read back by `parse`), the truth for fixtures and debugging:
    `#` hidden safe cell   `*` hidden mine   `F` flag on a mine   `f` flag on a safe cell
    `_` / `1`-`8` revealed safe cell (a digit must match its mine count)   `!` exploded mine
"""

from types import MappingProxyType

from .errors import ParseError
from .grid import Grid
from .minesweeper import CellState, Config, GameState, Minefield, Status

_PUBLIC = {
    CellState.HIDDEN: "#",
    CellState.FLAGGED: "F",
    CellState.MINE: "*",
    CellState.EXPLODED: "!",
    CellState.WRONG_FLAG: "X",
}


def render(state: GameState) -> str:
    """The board as a player sees it, one row per line."""
    grid = state.grid
    return "\n".join(
        "".join(_public_char(state, y * grid.width + x) for x in range(grid.width))
        for y in range(grid.height)
    )


def _public_char(state: GameState, cell: int) -> str:
    shown, count = state.cell_state(cell)
    if shown is CellState.REVEALED:
        return str(count) if count else "_"
    return _PUBLIC[shown]


def render_full(state: GameState) -> str:
    """The whole truth, hidden mines included (never show this to a player mid-game)."""
    grid = state.grid
    mines = state.field.mines if state.field else frozenset()
    counts = state.field.counts if state.field else bytes(grid.size)

    def char(cell: int) -> str:
        if cell in state.exploded:
            return "!"
        if cell in state.revealed:
            return str(counts[cell]) if counts[cell] else "_"
        if cell in state.flags:
            return "F" if cell in mines else "f"
        return "*" if cell in mines else "#"

    return "\n".join(
        "".join(char(y * grid.width + x) for x in range(grid.width)) for y in range(grid.height)
    )


def parse(text: str, *, seed: int = 0, player: int = 0) -> GameState:
    """Read the full view back into a state (all marks attributed to `player`).

    A board with no mine and nothing revealed is a game whose mines are not placed yet.
    """
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not rows or len({len(row) for row in rows}) != 1:
        raise ParseError(f"a board needs rows of equal length, got {text!r}")
    grid = Grid(len(rows[0]), len(rows))
    mines, revealed, flags, exploded = set(), {}, {}, set()
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            cell = y * grid.width + x
            if char in "*F!":
                mines.add(cell)
            if char in "Ff":
                flags[cell] = player
            if char == "!":
                exploded.add(cell)
            if char in "_12345678":
                revealed[cell] = player
            elif char not in "#*Ff!":
                raise ParseError(f"unknown character {char!r} at ({x}, {y})")
    placed = bool(mines or revealed)
    field = Minefield.build(grid, mines) if placed else None
    _check_digits(rows, grid, field)
    status = Status.PLAYING
    if exploded:
        status = Status.LOST
    elif placed and len(revealed) == grid.size - len(mines):
        status = Status.WON
    return GameState(
        config=Config(grid.width, grid.height, len(mines)),
        seed=seed,
        field=field,
        revealed=MappingProxyType(revealed),
        flags=MappingProxyType(flags),
        status=status,
        exploded=frozenset(exploded),
        ended_by=player if status is not Status.PLAYING else None,
    )


def _check_digits(rows: list[str], grid: Grid, field: Minefield | None) -> None:
    if field is None:
        return
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            expected = field.counts[y * grid.width + x]
            if char in "12345678" and int(char) != expected or char == "_" and expected:
                raise ParseError(f"({x}, {y}) says {char!r} but touches {expected} mines")
