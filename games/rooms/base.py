"""What every family of actions shares: an action's `Outcome`, and `Forbidden` (HTTP 403, a
socket's error) with the refusals a spectator gets, checked on the event loop before any
database work (`refuse_spectator`).
"""

from dataclasses import dataclass

from ..kinds import kind_of
from ..kinds.table import Applied
from ..protocol.messages import CellMove, Command, Message, SquareMove
from ..store.models import Game, Player, Room


class Forbidden(PermissionError):
    """The sender may not do this here (a spectator moving, a wrong token): HTTP 403."""


SPECTATORS_CANNOT_PLAY = "Spectators can watch but not play. Open the invite link to join."


SPECTATORS_CANNOT_START = "Spectators can watch but not start games."


SPECTATORS_CANNOT_SET_BOT = "Spectators can watch but not add or remove the Solver bot."


_SPECTATOR_COMMANDS = {
    "new_game": SPECTATORS_CANNOT_START,
    "add_bot": SPECTATORS_CANNOT_SET_BOT,
    "remove_bot": SPECTATORS_CANNOT_SET_BOT,
}


def refuse_spectator(room: Room, player: Player | None, message: Message) -> None:
    """Forbidden, without the database, when a spectator sends a move or a command only a seat
    may send: the room socket refuses it on the event loop, so a flood of refused moves never
    queues on the one database thread in front of the room's real moves (issue 26). The
    actions check the same again for their other callers (the API, the terminal)."""
    if player is not None and not player.is_spectator:
        return
    text = None
    if isinstance(message, Command):
        commands = kind_of(room.kind).commands
        plays = message.name in commands  # a kind's own command (a race's start)
        text = SPECTATORS_CANNOT_PLAY if plays else _SPECTATOR_COMMANDS.get(message.name)
    elif isinstance(message, CellMove | SquareMove):
        text = SPECTATORS_CANNOT_PLAY
    if text is not None:
        raise Forbidden(text)


@dataclass(frozen=True)
class Outcome:
    game: Game
    applied: Applied
    replaced: int | None = None
    """`new_game` only: the game the sender named, when another click had replaced it already
    (nothing started; `game` is the current one)."""
