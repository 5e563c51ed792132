"""Room chat: a line checked, counted against its limits, kept, and announced after the commit.

Players talk in the players' channel, spectators in theirs. Where boards are private to each
seat (a race, `GameKind.per_seat_boards`) a running game's racers never hear the spectators'
channel, so nobody can coach; they see it once the game is over (`announce.chat`). Every door
(the websocket, the JSON API) calls `say`; limits and figures are in docs/operations.md
("Limits").
"""

import time
import unicodedata
from functools import partial

from django.db import transaction

from . import announce
from .chat_view import KEPT
from .kinds.table import Invalid, Refused
from .limits import Budget, Decision, Limit, take_all
from .models import ChatMessage, Game, Player, Room

MAX_CHARACTERS = 200
"""A line's length after trimming: a sentence or two, never a wall of text."""

PER_SENDER = Limit("chat", 5, 10.0)
"""A person's pace (a seat, or a spectator's socket): a burst of 5, then one every 2 s."""
PER_ADDRESS = Limit("chat-address", 20, 10.0)
"""One client address, whatever seats and sockets it holds: a classroom behind a NAT fits."""
PER_ROOM = Limit("chat-room", 30, 10.0)
"""All of a room's senders together: bounds what every screen of the room must take."""

TOO_FAST = "Too many chat messages: wait a few seconds."
MUTED = "The host muted you in this room: your messages are not sent."
SPECTATORS_MUTED = "The host muted the spectators' chat: your messages are not sent."


class TooFast(Refused):
    """Over a chat limit: the line is not kept. Over the API a 429 with its `decision`."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(TOO_FAST)
        self.decision = decision


class Muted(PermissionError):
    """The host muted the sender (host controls): 403 over the API, an error on the socket."""


_budgets: dict[Limit, Budget] = {}
"""Per process, or once for the deployment with `REDIS_URL` (`games.limits.Budget`)."""


def budget(limit: Limit) -> Budget:
    if limit not in _budgets:
        _budgets[limit] = Budget(limit)
    return _budgets[limit]


def reset() -> None:
    """Fresh chat limits (tests: every test client shares one address)."""
    for each in _budgets.values():
        each.reset()
    _budgets.clear()


def clean(text: object) -> str:
    """The line as it is kept: trimmed, 1 to `MAX_CHARACTERS` characters, no control characters
    (they would let a line fake new lines or reorder text on others' screens)."""
    if not isinstance(text, str):
        raise Invalid('"text" must be a string: the chat line.')
    line = text.strip()
    if not line:
        raise Invalid("The chat message is empty: write something first.")
    if len(line) > MAX_CHARACTERS:
        raise Invalid(
            f"The chat message is too long: at most {MAX_CHARACTERS} characters, got {len(line)}."
        )
    bad = next((c for c in line if unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs")), None)
    if bad is not None:
        raise Invalid(f"The chat message has a control character (U+{ord(bad):04X}): remove it.")
    return line


def muted(room: Room, player: Player | None, spectator: str | None) -> str | None:
    """Why the host's mute (`games.host`) keeps this line out, or None: read from the database,
    as the host may have muted the sender since their socket opened."""
    if player is not None:
        return MUTED if Player.objects.filter(pk=player.pk, muted=True).exists() else None
    everyone, some = Room.objects.values_list("spectators_muted", "muted_spectators").get(
        pk=room.pk
    )
    if everyone:
        return SPECTATORS_MUTED
    return MUTED if spectator in some else None


def say(
    room: Room,
    player: Player | None,
    text: object,
    *,
    address: str,
    sender: object,
    spectator: str | None = None,
) -> ChatMessage:
    """`text` from `player` (None: a spectator, known to the host by `spectator`, their handle)
    into the room's chat, or a refusal for the sender alone. `sender`: who is paced (a seat's
    pk, or a spectator's socket), `address` the client's (`flood.address_key`)."""
    line = clean(text)
    why = muted(room, player, spectator)
    if why is not None:
        raise Muted(why)
    keys = ((PER_SENDER, sender), (PER_ADDRESS, address), (PER_ROOM, room.pk))
    # A refused line costs the other limits nothing.
    refusal = take_all(((budget(limit), key) for limit, key in keys), time.monotonic())
    if refusal is not None:
        raise TooFast(refusal)
    return _keep(room, player, line, spectator if player is None else None)


def _keep(
    room: Room, player: Player | None, line: str, spectator: str | None = None
) -> ChatMessage:
    channel = ChatMessage.Channel.SPECTATORS if player is None else ChatMessage.Channel.PLAYERS
    with transaction.atomic():
        game = Game.objects.filter(room=room).order_by("-number").only("pk").first()
        message = ChatMessage.objects.create(
            room=room,
            game=game,
            player=player,
            author="Spectator" if player is None else player.nickname,
            spectator=spectator or "",
            channel=channel,
            text=line,
        )
        stale = (
            ChatMessage.objects.filter(room=room)
            .order_by("-id")[KEPT:]
            .values_list("id", flat=True)
        )
        ChatMessage.objects.filter(id__in=list(stale)).delete()
        transaction.on_commit(partial(announce.chat, room.pk, message.pk))
    return message
