"""What every game kind's adapter returns to the service layer."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

COMPUTER_SEAT = 2_147_483_647
"""`Move.seat` of a computer's move (its `player` is None): a tic-tac-toe computer or the
Minesweeper Solver bot, and the engine's player id for the cells the bot reveals. Seats count up
from 0 per room, so no person's seat ever reaches it; it is the largest value every database's
PositiveIntegerField holds."""


class SettingsError(ValueError):
    """Room settings outside the documented limits; the message is shown to the user."""


class Refused(ValueError):
    """A move the game's state refuses (game over, not your turn): HTTP 409 in the API."""


class Invalid(ValueError):
    """A move that can never be valid here (off the board, wrong kind of move): HTTP 400."""


@dataclass(frozen=True)
class Applied:
    """The result of one accepted move, in storable form, with the engine's events."""

    state: dict[str, Any]
    status: str
    events: tuple[Any, ...]
    summary: dict[str, Any] = field(default_factory=dict)
    board: Any = field(default=None, compare=False, repr=False)
    """The engine's own object for `state`, when the rules kept it: the renderers and the bot
    use it instead of parsing `state` again on every move."""

    def loaded(self, load: Callable[[dict[str, Any]], Any]) -> Any:
        return self.board if self.board is not None else load(self.state)

    @property
    def changed(self) -> bool:
        return bool(self.events)
