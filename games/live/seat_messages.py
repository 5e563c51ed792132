"""A socket's `leave` and `name`: who the sender is in the room, rather than a move.

`leave` frees the sender's seat for good (`games.rooms.leaving`): the browser's session forgets the
seat, and every socket of the seat, this one too, closes with `leaving.LEFT` once the room has
been told. `name` gives a spectator's socket a name, checked as a nickname is, which its chat
lines carry (their `author`) and by which the host's menu lists them; players have theirs.
"""

from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from ..kinds.table import Invalid, Refused
from ..protocol.messages import TakeName
from ..rooms import leaving, nicknames
from ..store.models import Player, Room

NO_SEAT = "You are watching: there is no seat of yours to leave."
PLAYERS_NAMED = "Players have their name already: only spectators take one here."


class Socket(Protocol):
    """What of a room socket (`consumer.RoomConsumer`) this module reads and writes."""

    room: Room
    player: Player | None
    json: bool
    scope: dict[str, Any]
    spectator_name: str | None

    async def _reply_text(self, text: str) -> None: ...


async def leave(socket: Socket) -> None:
    if socket.player is None:
        raise Refused(NO_SEAT)
    await database_sync_to_async(leaving.leave)(socket.room, socket.player)
    session = socket.scope.get("session")
    if session is None:
        return
    seats = dict(session.get("players", {}))
    if seats.pop(socket.room.code, None) is not None:
        session["players"] = seats
        await database_sync_to_async(session.save)()


async def take_name(socket: Socket, message: TakeName) -> None:
    if socket.player is not None:
        raise Refused(PLAYERS_NAMED)
    name = await database_sync_to_async(spectator_name)(socket.room, message.name)
    socket.spectator_name = name
    if not socket.json:
        html = render_to_string("games/partials.html#spectator_name", {"name": name, "oob": True})
        await socket._reply_text(html)


def spectator_name(room: Room, raw: object) -> str:
    """`raw` as a spectator's name: the nickname rules (`nicknames.clean_nickname`), and neither
    a seat's name in the room nor one that looks like it, so a spectator cannot speak as a
    player. `Invalid` says what is wrong."""
    try:
        name = nicknames.clean_nickname(raw)
        seated = list(Player.objects.filter(room=room).values_list("nickname", flat=True))
        if name.casefold() in {other.casefold() for other in seated}:
            raise nicknames.NicknameError(
                f'"{name}" is a player\'s name in this room: choose another.'
            )
        nicknames.check_lookalike(name, seated)
    except nicknames.NicknameError as error:
        raise Invalid(str(error)) from None
    return name
