"""Flags' create options over the API: who holds each side, the mines and the turn timer."""

from typing import ClassVar, Literal

from pydantic import Field

from ..options import rated_option, side_option
from ..table import CreateOptions, Settings
from . import rules


class FlagsOptions(CreateOptions):
    """Two sides take turns claiming mines on a 16×16 board; more than half wins."""

    takes_seed: ClassVar[bool] = False

    game: Literal["flags"] = Field(description="Minesweeper Flags.")
    x: str = side_option(rules.PLAYERS, rules.HUMAN, "Who plays X, who opens.")
    o: str = side_option(rules.PLAYERS, "strong", "Who plays O.")
    mines: int = Field(
        rules.STANDARD_MINES,
        ge=1,
        le=rules.MAX_MINES,
        description=f"Mines on the board: an odd number, so nobody ties (standard {rules.STANDARD_MINES}).",
        json_schema_extra={"not": {"multipleOf": 2}},  # odd, in JSON Schema's words
    )
    turn_seconds: int = Field(
        0,
        description="Seconds a turn may take before it passes (0: no timer).",
        json_schema_extra={"enum": list(rules.TURN_SECONDS)},
    )

    rated: bool = rated_option()

    def settings(self) -> Settings:
        return rules.validate_settings(self.x, self.o, self.mines, self.turn_seconds, self.rated)
