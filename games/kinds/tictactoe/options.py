"""Tic-tac-toe's create options over the API: who holds each side."""

from typing import Literal

from pydantic import Field

from ..table import CreateOptions, Settings
from . import rules

SIDE = "A person (`human`) or the computer (`random`, `perfect`)."


class TicTacToeOptions(CreateOptions):
    """Three in a row on a 3×3 board; sides swap on every rematch."""

    game: Literal["tictactoe"] = Field(description="Tic-tac-toe.")
    x: str = Field(
        rules.HUMAN,
        description=f"Who plays X, who opens. {SIDE}",
        json_schema_extra={"enum": list(rules.PLAYERS)},
    )
    o: str = Field(
        "perfect",
        description=f"Who plays O. {SIDE}",
        json_schema_extra={"enum": list(rules.PLAYERS)},
    )

    def settings(self) -> Settings:
        return rules.validate_settings(self.x, self.o)
