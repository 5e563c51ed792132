"""The game kinds: per kind, everything the shell needs (settings, moves, rendering, hints,
computer players)."""

from types import ModuleType


def rules_for(kind: str) -> ModuleType:
    """The rules adapter of a game kind."""
    if kind == "minesweeper":
        from .minesweeper import rules

        return rules
    if kind == "tictactoe":
        from .tictactoe import rules as tictactoe_rules

        return tictactoe_rules
    raise ValueError(f"unknown game kind {kind!r}")
