"""A race's create options over the API: Minesweeper's board, no-guess by default, and the
race's own rules (the mine penalty, a time limit, the spectators' delay, the bot's pace)."""

from typing import ClassVar, Literal

from pydantic import ConfigDict, Field

from games.engine import minesweeper as ms

from ..options import PRESET_DESCRIPTION, PRESET_OR_SIZE, Preset, board_size, rated_option
from ..table import CreateOptions, Settings
from . import rules


def one_of(default: int, choices: tuple[int, ...], description: str) -> int:
    """A field that takes one of a few numbers, listed in the schema; the rules check it, so
    the message names the choices."""
    return Field(default, description=description, json_schema_extra={"enum": list(choices)})


class RaceOptions(CreateOptions):
    """A race: 2 to 8 racers, each on their own copy of one board; first to clear it wins."""

    model_config = ConfigDict(json_schema_extra=PRESET_OR_SIZE)

    takes_mode: ClassVar[bool] = True
    takes_seed: ClassVar[bool] = False

    game: Literal["minesweeper"] = Field("minesweeper", description="Minesweeper, with `mode`.")
    mode: Literal["race"] = Field(description='"race": a Minesweeper race.')
    preset: Preset | None = Field(None, description=PRESET_DESCRIPTION)
    width: int | None = Field(None, ge=4, le=rules.MAX_WIDTH, description="Columns.")
    height: int | None = Field(None, ge=4, le=rules.MAX_HEIGHT, description="Rows.")
    mines: int | None = Field(
        None,
        ge=1,
        le=ms.max_mines(rules.MAX_WIDTH, rules.MAX_HEIGHT),
        description="At most width×height − 9: the first click and its neighbours are clear.",
    )
    no_guess: bool = Field(
        True,
        description="Deal only boards that logic alone solves (at most 25% mines). Default true "
        "in a race, so that luck decides nothing.",
    )
    penalty_seconds: int = one_of(
        rules.DEFAULTS["penalty"],
        rules.PENALTIES,
        "Seconds a mine hit freezes the racer's board (0: none), unless `eliminate`.",
    )
    eliminate: bool = Field(
        bool(rules.DEFAULTS["eliminate"]),
        description="A mine hit puts the racer out of the race instead of freezing the board.",
    )
    time_limit_seconds: int = one_of(
        rules.DEFAULTS["time_limit"],
        rules.TIME_LIMITS,
        "Seconds from Go until the race ends, ranked by progress (0: no limit).",
    )
    spectator_delay_seconds: int = one_of(
        rules.DEFAULTS["spectator_delay"],
        rules.DELAYS,
        "Seconds by which spectators watch behind the racers, so nobody can coach (0: live).",
    )
    bot_pace: int = one_of(
        rules.DEFAULTS["bot_pace"],
        rules.PACES,
        "The computer racer's safe cells a second, once the host adds it (`add_bot`).",
    )
    rated: bool = rated_option()

    def settings(self) -> Settings:
        given = {"width": self.width, "height": self.height, "mines": self.mines}
        size = board_size(self.preset, given, rules.PRESETS)
        return rules.validate_settings(
            size["width"],
            size["height"],
            size["mines"],
            self.no_guess,
            penalty=self.penalty_seconds,
            eliminate=self.eliminate,
            time_limit=self.time_limit_seconds,
            spectator_delay=self.spectator_delay_seconds,
            bot_pace=self.bot_pace,
            rated=self.rated,
        )
