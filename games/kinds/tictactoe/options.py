"""Tic-tac-toe's create options over the API: who holds each side."""

from typing import Literal

from pydantic import Field

from ..options import rated_option, side_option
from ..table import CreateOptions, Settings
from . import rules


class TicTacToeOptions(CreateOptions):
    """Three in a row on a 3×3 board; sides swap on every rematch."""

    game: Literal["tictactoe"] = Field(description="Tic-tac-toe.")
    x: str = side_option(rules.PLAYERS, rules.HUMAN, "Who plays X, who opens.")
    o: str = side_option(rules.PLAYERS, "perfect", "Who plays O.")

    rated: bool = rated_option()

    def settings(self) -> Settings:
        return rules.validate_settings(self.x, self.o, self.rated)
