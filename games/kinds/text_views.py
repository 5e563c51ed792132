"""Plain-data views of a stored game for the JSON API and the terminal: text rows and changes."""

from typing import Any

from games.engine import ascii
from games.engine import minesweeper as minesweeper_engine
from games.engine import tictactoe as tictactoe_engine

from .table import Applied


def board_rows(kind: str, state: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The board as the terminal prints it, plus the kind's size and counters."""
    if kind == "tictactoe":
        board = tictactoe_engine.from_dict(state)
        return list(tictactoe_engine.rows(board)), {"width": 3, "height": 3}
    game = minesweeper_engine.from_dict(state)
    extra = {
        "width": game.config.width,
        "height": game.config.height,
        "mines_left": game.mines_left,
    }
    return ascii.render(game).split("\n"), extra


def changed_summary(kind: str, applied: Applied) -> list[dict[str, Any]]:
    """What one move changed, cell by cell: never more than the players may see."""
    if kind == "tictactoe":
        return [
            {"cell": event.square, "mark": event.mark.value}
            for event in applied.events
            if isinstance(event, tictactoe_engine.SquarePlaced)
        ]
    if not applied.events:
        return []
    grid = applied.loaded(minesweeper_engine.from_dict).grid
    return [
        {"x": c.x, "y": c.y, "state": c.state.value, "count": c.count}
        for c in minesweeper_engine.changed_cells(grid, applied.events)
    ]
