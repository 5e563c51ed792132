"""`play`: a parsed message to the family of actions that carries it out, for every door (the
room socket, the JSON API's `/moves`, the terminal's callers), by the handler its entry of the
message table names (`games.protocol.message_table`). The families do the writing: `playing`
(moves, a kind's own commands, new games), `hints`, `computers` (the Solver bot)."""

from collections.abc import Callable
from typing import Any

from ..kinds import kind_of
from ..kinds.table import GameKind, Invalid
from ..protocol.message_table import Handler, entry_for
from ..protocol.messages import Message
from ..store.models import Player, Room
from . import computers, hints, playing
from .base import Outcome


def _start_next_game(room: Room, player: Player | None, message: Any, kind: GameKind) -> Outcome:
    return playing.start_next_game(room, player, replacing=message.game)


def _hint(room: Room, player: Player | None, message: Any, kind: GameKind) -> Outcome:
    return hints.ask_hint(room, player)


def _set_bot(room: Room, player: Player | None, message: Any, kind: GameKind) -> Outcome:
    return computers.set_bot(room, player, message.name == "add_bot", message.pace)


def _move(room: Room, player: Player | None, message: Any, kind: GameKind) -> Outcome:
    return playing.play_move(room, player, message)


PLAYS: dict[Handler, Callable[[Room, Player | None, Any, GameKind], Outcome]] = {
    Handler.MOVE: _move,
    Handler.NEW_GAME: _start_next_game,
    Handler.SET_BOT: _set_bot,
    Handler.KIND_COMMAND: playing.command,
    Handler.HINT: _hint,
}
"""The handlers of the table's names that play (`/moves` takes these alone, bar `hint`)."""


def play(room: Room, player: Player | None, message: Message) -> Outcome:
    """Apply one move or command for `player` (None for a spectator)."""
    kind = kind_of(room.kind)
    entry = entry_for(message.action, kind.commands)
    handler = None if entry is None else PLAYS.get(entry.handler)
    if handler is None:
        raise Invalid("That is not a move.")
    return handler(room, player, message, kind)
