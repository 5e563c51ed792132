"""What programs read of a Flags game beyond its rows: its fields in the API's room state and
its part of the bots' events schema (events.schema.json beside this module)."""

from pathlib import Path
from typing import Literal

from ..sides import WINNER, YOU
from ..table import StateField, events_schema_part

STATE_FIELDS = (
    WINNER,
    YOU,
    StateField(
        "turn", Literal["X", "O"] | None, "Flags: the side to move; null once the game is over."
    ),
    StateField("scores", dict[str, int] | None, 'Flags: mines claimed per side, {"X": n, "O": n}.'),
    StateField(
        "bombs",
        dict[str, bool] | None,
        'Flags: whether each side still holds its bomb, {"X": true, "O": false}.',
    ),
    StateField("mines", int | None, "Flags: mines on the board."),
    StateField("to_win", int | None, "Flags: mines a side needs to win."),
    StateField(
        "turn_seconds",
        int | None,
        "Flags: the turn timer in seconds (0: none); a turn past it passes.",
    ),
    StateField(
        "turn_deadline",
        float | None,
        "Flags with a turn timer: Unix time (seconds) at which the current turn passes; null "
        "before the game's first move, without a timer, and once it is over.",
    ),
)

EVENTS_SCHEMA = events_schema_part(Path(__file__).parent)
