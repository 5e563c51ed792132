"""Pings and reactions: a player points the room at a cell, or shows an emote, for a few seconds.

Presence, like a pointer: checked on the event loop, sent to the room's sockets and forgotten;
never stored, never in the engine. One read of the database, after the budgets: whether the host
muted the sender since their socket opened (a mute silences pings and reactions as it does chat). Who hears it follows the boards:
where everyone sees one board (Minesweeper, Flags) every screen gets a ping; in a race only the
pinger's own screens do, since a rival who saw it would learn where the pinger's board is safe.
A reaction says nothing of a board and goes to every screen (a race's spectators hear it late,
as everything). Only players send either: a ping or a reaction is shown against a seat's name
and colour, which a spectator has not (docs/contracts.md, "Pings and reactions").

Each player, client address and room has a budget of them together (`games.limits`); past it
the sender alone hears why and nothing is sent (docs/operations.md, "Limits").
"""

import json
import time

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from ..broadcast.outbox import group_name
from ..kinds import kind_of
from ..kinds.table import Invalid, Refused
from ..limits import Budget, Decision, Limit, take_all, take_all_async
from ..protocol import audiences
from ..protocol.messages import Ping, React
from ..store.models import Player, Room
from . import chat
from .base import Forbidden

EMOTES = {
    "thumbs-up": ("👍", "thumbs up"),
    "clap": ("👏", "applause"),
    "laugh": ("😂", "laughing"),
    "wow": ("😮", "wow"),
    "think": ("🤔", "thinking"),
    "oops": ("😬", "oops"),
    "party": ("🎉", "celebrating"),
    "wave": ("👋", "waving"),
}
"""The fixed set a reaction names: its symbol, and the words a screen reader says."""

PER_PLAYER = Limit.rate("signals-player", 4, 1.0)
"""One person's pings and reactions together, all their sockets: a few quick ones, then one a
second; more would be noise, not pointing."""
PER_ADDRESS = Limit.rate("signals-address", 20, 5.0)
"""A client address's, across its seats and rooms: a classroom behind one NAT, not a script
cycling seats."""
PER_ROOM = Limit.rate("signals-room", 20, 5.0)
"""A room's, everyone's together: at most five a second reach each screen of the room."""

_PLAYERS, _ADDRESSES, _ROOMS = Budget(PER_PLAYER), Budget(PER_ADDRESS), Budget(PER_ROOM)
"""Per process, or once for the deployment with `REDIS_URL` (`games.limits.Budget`)."""

SPECTATORS_CANNOT_SIGNAL = (
    "Spectators cannot ping cells or react: join the room to take a seat first."
)
MUTED = "The host muted you in this room: your pings and reactions are not sent."
NO_GRID = "Pings point at a cell of a grid; this game has none: send a reaction instead."


WHOSE = {
    PER_PLAYER.name: "",
    PER_ADDRESS.name: " from your address",
    PER_ROOM.name: " in this room",
}


def too_many(decision: Decision) -> str:
    """The refusal's reason: whose budget ran out, its pace, and when to try again."""
    limit = decision.limit
    return (
        f"Too many pings and reactions{WHOSE[limit.name]}: a burst of {limit.count}, then "
        f"{limit}. Try again in {max(1, round(decision.retry_after))} s."
    )


def check(room: Room, player: Player | None, signal: Ping | React) -> None:
    """Refuse, with a reason for the sender alone, a signal the room cannot take."""
    if player is None or player.is_spectator:
        raise Forbidden(SPECTATORS_CANNOT_SIGNAL)
    if isinstance(signal, React):
        if signal.emote not in EMOTES:
            names = ", ".join(EMOTES)
            raise Invalid(f"Unknown emote {signal.emote!r}: use one of {names}.")
        return
    grid = kind_of(room.kind).setup.grid
    if grid is None:
        raise Invalid(NO_GRID)
    width, height = grid(room.settings)
    if not (0 <= signal.x < width and 0 <= signal.y < height):
        raise Invalid(
            f"Cell ({signal.x}, {signal.y}) is off the board: x is 0 to {width - 1}, "
            f"y is 0 to {height - 1}."
        )


def take_budget(room_id: int, player_id: int, address: str, now: float) -> None:
    """One from the player's, the address's and the room's budgets, or Refused; a refusal by a
    later one gives the earlier back (what was refused was never sent)."""
    refusal = take_all(_budgets(room_id, player_id, address), now)
    if refusal is not None:
        raise Refused(too_many(refusal))


async def take_budget_async(room_id: int, player_id: int, address: str, now: float) -> None:
    """`take_budget` for the event loop."""
    refusal = await take_all_async(_budgets(room_id, player_id, address), now)
    if refusal is not None:
        raise Refused(too_many(refusal))


def _budgets(room_id: int, player_id: int, address: str) -> list[tuple[Budget, object]]:
    return [(_PLAYERS, player_id), (_ADDRESSES, address), (_ROOMS, room_id)]


def reset() -> None:
    """Fresh budgets (tests: every test client shares one address)."""
    for budget in (_PLAYERS, _ADDRESSES, _ROOMS):
        budget.reset()


def texts(room: Room, player: Player, signal: Ping | React) -> dict[str, str]:
    """The signal's text per audience: HTML for pages, a JSON event for bots."""
    if isinstance(signal, React):
        symbol, words = EMOTES[signal.emote]
        context = {"player": player, "emote": signal.emote, "symbol": symbol, "words": words}
        html = render_to_string("games/partials.html#reaction", context)
        event: dict[str, object] = {"type": "reaction", "emote": signal.emote}
    else:
        context = {"player": player, "x": signal.x, "y": signal.y}
        html = render_to_string("games/partials.html#ping", context)
        event = {"type": "ping", "x": signal.x, "y": signal.y}
    json_text = _event({**event, "seat": player.number, "name": player.nickname})
    if isinstance(signal, Ping) and kind_of(room.kind).per_seat_boards is not None:
        number = player.number
        return {audiences.seat(number): html, audiences.json_seat(number): json_text}
    return {audiences.ALL: html, audiences.JSON: json_text}


def _event(event: dict[str, object]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


async def send(room: Room, player: Player | None, signal: Ping | React, address: str) -> None:
    """Check the signal, take it from the budgets, refuse it from a muted seat, and send it to
    the room's screens."""
    check(room, player, signal)
    assert player is not None
    await take_budget_async(room.pk, player.pk, address, time.monotonic())
    if await database_sync_to_async(chat.seat_muted)(player):
        raise chat.Muted(MUTED)
    # Shows nothing a snapshot shows: the room's kept snapshot stays good (`relay`).
    message = {"type": "room.html", "texts": texts(room, player, signal), "keeps_snapshot": True}
    await get_channel_layer().group_send(group_name(room.pk), message)
