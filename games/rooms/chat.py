"""Room chat: a line checked, counted against its limits, kept, and announced after the commit.

Players talk in the players' channel, spectators in theirs. Where boards are private to each
seat (a race, `GameKind.per_seat_boards`) a running game's racers never hear the spectators'
channel, so nobody can coach; they see it once the game is over (`announce.chat`). A racer who
stopped racing while others race watches the boards with the spectators, and talks and hears in
their channel until the race is over (`chat_view.watchers`). Every door
(the websocket, the JSON API) calls `say`; limits and figures are in docs/operations.md
("Limits").
"""

import time
import unicodedata
from functools import partial

from django.db import transaction
from django.utils.crypto import salted_hmac

from ..broadcast import announce, chat_view
from ..broadcast.chat_view import KEPT, PER_ADDRESS_KEPT
from ..kinds.table import Invalid, Refused
from ..limits import Budget, Decision, Limit, take_all
from ..store.models import ChatMessage, Game, Player, Room
from . import nicknames as names

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
    (they would let a line fake new lines or reorder text on others' screens), no stack of
    combining marks taller than a name may have (`names.MAX_MARKS`)."""
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
    if names.stacked_marks(line) > names.MAX_MARKS:  # drawn over the lines above and below
        raise Invalid(
            f"The chat message stacks too many combining marks: at most {names.MAX_MARKS} on "
            "one character."
        )
    return line


def seat_muted(player: Player) -> bool:
    """Whether the host muted this seat: read from the database, as the host may have muted it
    since its socket opened."""
    return Player.objects.filter(pk=player.pk, muted=True).exists()


def muted(
    room: Room, player: Player | None, spectator: str | None, session_seat: Player | None = None
) -> str | None:
    """Why the host's mute (`games.rooms.host`) keeps this line out, or None. A spectator is muted by
    their handle, with all spectators, or by the seat their browser session holds in the room
    (`session_seat`): a muted player who opens the watch link in the same browser stays muted."""
    if player is not None:
        return MUTED if seat_muted(player) else None
    everyone, some = Room.objects.values_list("spectators_muted", "muted_spectators").get(
        pk=room.pk
    )
    if everyone:
        return SPECTATORS_MUTED
    if spectator in some or (session_seat is not None and seat_muted(session_seat)):
        return MUTED
    return None


def say(
    room: Room,
    player: Player | None,
    text: object,
    *,
    address: str,
    sender: object,
    spectator: str | None = None,
    session_seat: Player | None = None,
    name: str | None = None,
) -> ChatMessage:
    """`text` from `player` (None: a spectator, known to the host by `spectator`, their handle,
    and by `session_seat`, the seat their browser session holds here, if any) into the room's
    chat, or a refusal for the sender alone. `sender`: who is paced (a seat's pk, or a
    spectator's socket), `address` the client's (`flood.address_key`); `name` a spectator's
    own (`live.seat_messages`), else their lines read "Spectator"."""
    line = clean(text)
    why = muted(room, player, spectator, session_seat)
    if why is not None:
        raise Muted(why)
    keys = ((PER_SENDER, sender), (PER_ADDRESS, address), (PER_ROOM, room.pk))
    # A refused line costs the other limits nothing.
    refusal = take_all(((budget(limit), key) for limit, key in keys), time.monotonic())
    if refusal is not None:
        raise TooFast(refusal)
    if player is not None:
        spectator = name = None
    return _keep(room, player, line, spectator, address=address, name=name)


def _keep(
    room: Room,
    player: Player | None,
    line: str,
    spectator: str | None = None,
    *,
    address: str = "",
    name: str | None = None,
) -> ChatMessage:
    channel = ChatMessage.Channel.PLAYERS
    if player is None or player.number in chat_view.watchers(room):
        channel = ChatMessage.Channel.SPECTATORS  # nobody still racing hears it
    sender = address_tag(address)
    with transaction.atomic():
        game = Game.objects.filter(room=room).order_by("-number").only("pk").first()
        message = ChatMessage.objects.create(
            room=room,
            game=game,
            player=player,
            author=player.nickname if player is not None else name or "Spectator",
            guest=player is not None and player.account_id is None,
            spectator=spectator or "",
            channel=channel,
            text=line,
            address=sender,
        )
        _make_room(room, channel, sender)
        transaction.on_commit(partial(announce.chat, room.pk, message.pk))
    return message


def address_tag(address: str) -> str:
    """What a kept line says of its sender's address: a keyed hash, enough to tell one address
    from another in a room's 50 lines, never the address itself."""
    return (
        salted_hmac("chat-address", address, algorithm="sha256").hexdigest()[:16] if address else ""
    )


def _make_room(room: Room, channel: str, sender: str) -> None:
    """Each channel keeps its last `KEPT` lines, so one channel never pushes another's out; and
    an address that holds `PER_ADDRESS_KEPT` of them makes room only from its own: a crowd of
    sockets behind one address can no longer wipe everyone else's lines."""
    lines = ChatMessage.objects.filter(room=room, channel=channel)
    over = lines.count() - KEPT
    if over <= 0:
        return
    own = lines.filter(address=sender) if sender else lines.none()
    victims = own if own.count() > PER_ADDRESS_KEPT else lines
    stale = victims.order_by("id").values_list("id", flat=True)[:over]
    ChatMessage.objects.filter(id__in=list(stale)).delete()
