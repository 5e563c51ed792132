"""`play`: a parsed message to the family of actions that carries it out, for every door (the
room socket, the JSON API's `/moves`, the terminal's callers). The families do the writing:
`playing` (moves, a kind's own commands, new games), `hints`, `computers` (the Solver bot)."""

from ..kinds import kind_of
from ..kinds.table import Invalid
from ..protocol.messages import CellMove, Command, Message, SquareMove
from ..store.models import Player, Room
from . import computers, hints, playing
from .base import Outcome


def play(room: Room, player: Player | None, message: Message) -> Outcome:
    """Apply one move or command for `player` (None for a spectator)."""
    kind = kind_of(room.kind)
    if isinstance(message, Command) and message.name in kind.commands:
        return playing.command(room, player, message, kind)
    if isinstance(message, Command) and message.name == "new_game":
        return playing.start_next_game(room, player, replacing=message.game)
    if isinstance(message, Command) and message.name == "hint":
        return hints.ask_hint(room, player)
    if isinstance(message, Command) and message.name in ("add_bot", "remove_bot"):
        return computers.set_bot(room, player, message.name == "add_bot", message.pace)
    if not isinstance(message, CellMove | SquareMove):
        raise Invalid("That is not a move.")
    return playing.play_move(room, player, message)
