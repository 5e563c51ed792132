"""Minesweeper's create options over the API: a preset or a custom size, and no-guess."""

from typing import Literal

from pydantic import ConfigDict, Field

from games.engine import minesweeper as engine

from ..options import PRESET_DESCRIPTION, PRESET_OR_SIZE, Preset, board_size
from ..table import CreateOptions, Settings
from . import rules


class MinesweeperOptions(CreateOptions):
    """A co-op room: everyone clears one shared board."""

    model_config = ConfigDict(json_schema_extra=PRESET_OR_SIZE)

    game: Literal["minesweeper"] = Field("minesweeper", description="Minesweeper (the default).")
    mode: Literal["coop"] = Field("coop", description='"coop" (default), or "race" for a race.')
    preset: Preset | None = Field(None, description=PRESET_DESCRIPTION)
    width: int | None = Field(None, ge=2, le=rules.MAX_WIDTH, description="Columns.")
    height: int | None = Field(None, ge=2, le=rules.MAX_HEIGHT, description="Rows.")
    mines: int | None = Field(
        None,
        ge=1,
        le=engine.max_mines(rules.MAX_WIDTH, rules.MAX_HEIGHT),
        description="At most width×height − 9: the first click and its neighbours are clear.",
    )
    no_guess: bool = Field(
        False,
        description="Deal only boards that logic alone solves (at most 25% mines).",
    )

    def settings(self) -> Settings:
        given = {"width": self.width, "height": self.height, "mines": self.mines}
        size = board_size(self.preset, given, rules.PRESETS)
        return rules.validate_settings(size["width"], size["height"], size["mines"], self.no_guess)
