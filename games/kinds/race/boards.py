"""A race's boards, cell by cell: a racer's own board in full, the board everyone sees before Go,
and a rival's board as a small copy or as a progress card without cells (render.py's docstring
says who may see which). Cells are written here rather than through the template engine: a
cascade or a snapshot has thousands."""

from django.utils.html import escape

from games.engine import minesweeper as ms
from games.engine import race as engine

LABELS = {
    ms.CellState.HIDDEN: "hidden",
    ms.CellState.FLAGGED: "flagged",
    ms.CellState.MINE: "mine",
    ms.CellState.EXPLODED: "mine hit",
    ms.CellState.WRONG_FLAG: "wrong flag, no mine",
}


def own_cell(x: int, y: int, shown: ms.CellState, count: int | None) -> str:
    """A cell of the viewer's own board: the Minesweeper cell markup."""
    if shown is ms.CellState.REVEALED:
        label = f"{count} adjacent mine{'s' if count != 1 else ''}" if count else "empty"
        extra, text = f' data-count="{count}"', str(count) if count else ""
    else:
        label, extra, text = LABELS[shown], "", ""
    return (
        f'<button type="button" class="cell" id="cell-{x}-{y}" data-x="{x}" data-y="{y}"'
        f' data-state="{shown.value}"{extra} aria-label="row {y + 1}, column {x + 1}, {label}"'
        f' tabindex="-1" hx-swap-oob="true">{text}</button>'
    )


def full_cell(seat: int, x: int, y: int, shown: ms.CellState, count: int | None) -> str:
    """A racer's cell on a spectator's screen: the full cell markup."""
    if shown is ms.CellState.REVEALED:
        extra, text = f' data-count="{count}"', str(count) if count else ""
    else:
        extra, text = "", ""
    return (
        f'<i id="cell-{seat}-{x}-{y}" data-x="{x}" data-y="{y}" data-state="{shown.value}"{extra}'
        f' hx-swap-oob="true">{text}</i>'
    )


def own_board(race: engine.Race, racer: engine.Racer) -> str:
    grid = race.grid
    cells = "".join(
        own_cell(*grid.xy(cell), *racer.cell_state(cell)) for cell in range(grid.size)
    ).replace(' hx-swap-oob="true"', "")
    frozen = ' data-frozen="true"' if racer.frozen_until is not None else ""
    return (
        f'<div id="board" class="board race-board" role="application"'
        f' aria-roledescription="minefield" aria-label="Your minefield, {grid.width} columns by'
        f' {grid.height} rows" aria-describedby="board-keys" data-width="{grid.width}"'
        f' data-height="{grid.height}" data-status="{board_status(race, racer)}"{frozen}'
        f' hx-swap-oob="true">{cells}</div>'
    )


def board_status(race: engine.Race, racer: engine.Racer) -> str:
    """`#board`'s data-status: playing while this racer may move."""
    if racer.board.status is ms.Status.WON:
        return "won"
    if not racer.is_racing:
        return "lost"
    return "playing" if race.phase is engine.Phase.RACING else "waiting"


def blank_board(race: engine.Race, note: str) -> str:
    """`#board` of a screen with no board of its own: a spectator, or a player not racing."""
    grid = race.grid
    return (
        f'<div id="board" class="board race-board watch-board" data-width="{grid.width}"'
        f' data-height="{grid.height}" data-status="waiting" hx-swap-oob="true">'
        f'<p class="watch-note">{escape(note)}</p></div>'
    )


def lobby_board(race: engine.Race) -> str:
    """Before the start, an empty board of the race's size, for everyone."""
    grid = race.grid
    cells = "".join(
        f'<button type="button" class="cell" id="cell-{x}-{y}" data-x="{x}" data-y="{y}"'
        f' data-state="hidden" tabindex="-1" disabled></button>'
        for y in range(grid.height)
        for x in range(grid.width)
    )
    return (  # a preview of the size, with nothing to press yet: hidden from screen readers
        f'<div id="board" class="board race-board" data-width="{grid.width}"'
        f' data-height="{grid.height}" data-status="waiting" aria-hidden="true"'
        f' hx-swap-oob="true">{cells}</div>'
    )


def mini_board(race: engine.Race, racer: engine.Racer) -> str:
    """A racer's board in full, for a screen that may see it."""
    grid = race.grid
    cells = "".join(
        full_cell(racer.seat, *grid.xy(cell), *racer.cell_state(cell)) for cell in range(grid.size)
    ).replace(' hx-swap-oob="true"', "")
    return (
        f'<div id="board-{racer.seat}" class="mini-board" data-view="full"'
        f' data-width="{grid.width}" data-height="{grid.height}"'
        f' data-progress="{racer.progress}">{cells}</div>'
    )


def progress_card(racer: engine.Racer, status: str) -> str:
    """A racer as a racing rival sees them: how far along, no cells. The status inside is
    swapped on its own as it changes; race.js copies its figures onto this element."""
    return (
        f'<div id="board-{racer.seat}" class="progress-card" data-view="progress"'
        f' data-progress="{racer.progress}" data-standing="{racer.standing.value}"'
        f' data-mines-hit="{len(racer.hits)}">{status}</div>'
    )
