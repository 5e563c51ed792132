"""Adapters between rooms and the pure engines: settings, moves and outcomes per game kind."""

from types import ModuleType


def rules_for(kind: str) -> ModuleType:
    """The adapter module of a game kind (`games.play.minesweeper`, `games.play.tictactoe`)."""
    if kind == "minesweeper":
        from . import minesweeper

        return minesweeper
    if kind == "tictactoe":
        from . import tictactoe

        return tictactoe
    raise ValueError(f"unknown game kind {kind!r}")
