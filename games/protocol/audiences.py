"""Who gets which text of a room's message: one text for everyone, or one per audience.

Most messages are the same for every screen in a room, and go out as one text. Some are not:
in a race each racer sees their own board in full and the others' only as progress, and
spectators see every board; bots on the websocket read JSON rather than HTML. A message for
such a room is a mapping from audience keys to texts, rendered once each however many sockets
take it, and each socket takes the first key of its own `order` that the message has (none: the
message is not for it). Beside its texts a message may carry controls (`Control`: close, or
take a snapshot), by the same keys. This module holds the keys, the controls and that choice,
and nothing else, so that both the write path that builds messages and the sockets that read
them can use it.
"""

from collections.abc import Mapping
from enum import StrEnum

ALL = "all"
"""Every HTML screen without a more particular text: players and spectators alike."""
PLAYERS = "players"
"""Every socket of a person with a seat."""
SPECTATORS = "spectators"
"""Every socket without a seat."""
JSON = "json"
"""Bots on the websocket, whatever their seat: JSON events, never HTML."""
RESYNC = "resync"
"""Bots whose own key the message lacks, when the message changed the whole game for them (a
new game): their socket sends them a fresh snapshot of their own instead (`Control.RESYNC`)."""


class Control(StrEnum):
    """What a room's message may tell a socket rather than give it to send: carried beside the
    texts, in the channel layer's message's own `"controls"` (audience key -> the value, a
    plain string through Redis's msgpack), so a text is always a text to send and a control is
    never mistaken for one. A socket looks in the controls, then the texts, key by key of its
    `order` (`pick_control`): a key of both is a control's."""

    RESYNC = "resync"
    """Under `RESYNC`: no event, the bot's socket sends it a snapshot of its own."""
    REVOKED = "revoked"
    """To the sockets of a seat whose token the host revoked: they close (4403)."""
    KICKED = "kicked"
    """To the sockets of a seat or a spectator the host kicked: they close (4403)."""
    CLOSED = "closed"
    """To every socket of a room its host deleted: each says so and closes (4404, as an unknown
    room's)."""
    LEFT = "left"
    """To the sockets of a seat whose player left the room (`games.rooms.leaving`): they close
    (4410)."""


Controls = Mapping[str, Control]
"""Audience key -> what the sockets that find that key first are told."""

LATE = "\x00late\x00"
"""Inside a text for a seat's screens: the seat is out of a race that others still run (gave up,
out, finished), so what follows, and everything after it until `LIVE`, reaches the seat's
sockets as late as the spectators' (their delay): someone who sees the rivals' boards must not
see them sooner than a spectator does, or they could coach. Nothing sends it to a client: the
sockets that may meet it (`paced`) never take the fast path that sends a text as it is."""
LIVE = "\x00live\x00"
"""At the start of a text for a seat's screens: the seat races, or the race is over, so its
sockets hear everything at once again (what waits goes first). Nothing sends it to a client."""
CLOSED = dict.fromkeys((ALL, PLAYERS, SPECTATORS, JSON), Control.CLOSED)
"""The room's last message: every socket finds one of these keys first."""


def revoked(number: int) -> dict[str, Control]:
    """The controls that close every socket of seat `number`, pages' and bots' alike."""
    return {seat(number): Control.REVOKED, json_seat(number): Control.REVOKED}


def left(number: int) -> dict[str, Control]:
    """The controls that close every socket of seat `number` once its player left."""
    return {seat(number): Control.LEFT, json_seat(number): Control.LEFT}


def paced(seat_number: int | None, *, json: bool, per_seat_boards: bool) -> bool:
    """Whether a socket's texts may carry `LATE` or `LIVE` (a seat's page in a room of per-seat
    boards): such a socket's texts go the way that reads them, never straight to its
    connection."""
    return per_seat_boards and seat_number is not None and not json


def seat(number: int) -> str:
    """The sockets of the person in seat `number` (`Player.number`)."""
    return f"seat:{number}"


def json_seat(number: int) -> str:
    """A bot's socket holding seat `number`'s token."""
    return f"json:seat:{number}"


def watcher(handle: str) -> str:
    """The sockets of a spectator, by their handle in the room (`host.handle`)."""
    return f"watcher:{handle}"


def order(
    seat_number: int | None, *, json: bool = False, spectator: str | None = None
) -> tuple[str, ...]:
    """The keys a socket looks for, most particular first; `spectator`: a seatless socket's
    handle, by which the host may kick it."""
    own = () if spectator is None or seat_number is not None else (watcher(spectator),)
    if json:
        if seat_number is None:
            return (*own, JSON, RESYNC)
        return (json_seat(seat_number), JSON, RESYNC)
    if seat_number is None:
        return (*own, SPECTATORS, ALL)
    return (seat(seat_number), PLAYERS, ALL)


def with_texts(fragment: str | Mapping[str, str], more: Mapping[str, str]) -> dict[str, str]:
    """`fragment` (one text for every screen, or one per audience) and `more` audiences."""
    texts = {ALL: fragment} if isinstance(fragment, str) else dict(fragment)
    texts.update(more)
    return texts


def pick(texts: Mapping[str, str], keys: tuple[str, ...]) -> str | None:
    """The text for a socket that looks for `keys`, or None when the message is not for it."""
    for key in keys:
        text = texts.get(key)
        if text is not None:
            return text
    return None


def pick_control(
    texts: Mapping[str, str], controls: Mapping[str, str], keys: tuple[str, ...]
) -> Control | None:
    """The control for a socket that looks for `keys`, when its first key the message has is a
    control's (`controls` as the layer carries them: plain strings); None: a text or nothing."""
    for key in keys:
        control = controls.get(key)
        if control is not None:
            return Control(control)
        if key in texts:
            return None
    return None
