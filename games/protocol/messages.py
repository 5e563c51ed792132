"""Client messages parsed once, at the edge, into small values (or a clear error).

Browsers send form fields through htmx's websocket extension, so numbers may arrive as strings and
a `HEADERS` object rides along; bots send plain JSON. Both end up as the same values here.
"""

import re
from dataclasses import dataclass
from typing import Any, ClassVar

MAX_MESSAGE_BYTES = 8 * 1024
CELL_ACTIONS = ("reveal", "flag", "chord", "bomb")
"""Moves on a cell (x, y); each kind takes those it knows (`bomb` is Flags')."""
COMMANDS = ("new_game", "sync", "hint", "add_bot", "remove_bot")
"""The shell's messages that are not moves, in any room: `hint` asks for a provably safe cell
(Minesweeper), `add_bot` and `remove_bot` seat or unseat the Solver bot (the host only; `add_bot`
may name its `pace` where the kind offers several). A kind's own commands (a race's `start` and
`give_up`, a two-sided game's `claim_win` and `take_seat`) are its table's
(`GameKind.commands`): the caller passes the room's kind's names."""
MOVES = ("reveal", "flag", "chord", "bomb", "mark")
FIELDS = ("action", "x", "y", "cell", "pace", "game")
"""What a message may carry, on the socket and in the API's `/moves` body (`web.api.MoveIn`
declares the same): another field is refused by name, so a misspelt `gmae` cannot silently drop
`new_game`'s guard. On the socket a message may also carry an `id`, which the reply echoes
(docs/api.md, "Writing a bot"), and a page's messages htmx's `HEADERS`; both are let through."""
SOCKET_ONLY_FIELDS = ("id", "HEADERS", "emote")
SOCKET_ONLY_ACTIONS = ("hint", "sync", "hover", "ping", "react", "chat", "leave", "name")
"""What `POST /api/rooms/<code>/moves` refuses: hints, the board and the chat have endpoints of
their own, and pings and reactions are presence."""


class BadMessage(ValueError):
    """The message is not one the room understands; the text is shown to its sender."""


class TooLarge(BadMessage):
    """Over `MAX_MESSAGE_BYTES`: counted apart (`metrics`), as a sign of a hostile client."""


@dataclass(frozen=True, slots=True)
class CellMove:
    """A move on the cell (x, y): Minesweeper's reveal, flag and chord, Flags' reveal and bomb."""

    action: str
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class SquareMove:
    """A tic-tac-toe mark on square 0..8."""

    action: ClassVar[str] = "mark"

    cell: int


@dataclass(frozen=True, slots=True)
class Command:
    """`new_game` may name the game it replaces, so two players clicking at once start one game;
    `add_bot` may carry the bot's `pace` (safe cells a second); `hint`, `remove_bot` and `sync`
    carry nothing."""

    name: str
    game: int | None = None
    pace: int | None = None

    @property
    def action(self) -> str:
        """The name it came by, as every message value has (`message_table`)."""
        return self.name


@dataclass(frozen=True, slots=True)
class Hover:
    """Where a player's pointer rests: presence, never stored, never part of the game."""

    action: ClassVar[str] = "hover"

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Ping:
    """A player points the room at the cell (x, y) for a few seconds: presence, never stored."""

    action: ClassVar[str] = "ping"

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class React:
    """A player shows an emote beside their name for a few seconds (`rooms.signals.EMOTES`)."""

    action: ClassVar[str] = "react"

    emote: str


SIGNALS = ("ping", "react")
"""Presence a player sends the room (`rooms.signals`): by the socket only, never a move."""


@dataclass(frozen=True, slots=True)
class Chat:
    """A line for the room's chat (`games.rooms.chat`), checked there: on the socket only, as the API
    has `POST /api/rooms/<code>/chat`."""

    action: ClassVar[str] = "chat"

    text: object


CHAT_FIELDS = ("action", "text", "id", "HEADERS")
"""What a socket's chat message may carry: its own `text`, not a move's fields."""


HOST_ACTIONS = (
    "kick",
    "lock",
    "unlock",
    "cap",
    "visibility",
    "mute",
    "unmute",
    "transfer",
    "spectator_count",
)
"""The host controls (`games.rooms.host`): the same bodies on the socket and the API's `/host`."""
SPECTATOR_HANDLE = 12
"""Characters of a spectator's handle (`host.handle`), by which the host names them."""
WHOM = 'Name someone: "seat": N for a seat, or "spectator": HANDLE for a spectator.'

_FIELDS: dict[str, tuple[str, ...]] = {
    "kick": ("seat", "spectator"),
    "lock": (),
    "unlock": (),
    "cap": ("players",),
    "visibility": ("public",),
    "mute": ("seat", "spectator", "spectators"),
    "unmute": ("seat", "spectator", "spectators"),
    "transfer": ("seat",),
    "spectator_count": ("shown",),
}
"""What each command may carry besides `action` (and a socket's `id` and htmx's `HEADERS`)."""


@dataclass(frozen=True, slots=True)
class HostCommand:
    """One host command: `seat` or `spectator` names whom (kick, mute, transfer), `spectators`
    all of them (mute), `players` the cap, `on` the switch (visibility's `public`,
    spectator_count's `shown`)."""

    action: str
    seat: int | None = None
    spectator: str | None = None
    spectators: bool = False
    players: int | None = None
    on: bool | None = None


def host_command(data: dict[str, Any]) -> HostCommand:
    """A host command's body (the socket's or the API's) as a value, or a `BadMessage` that
    names what is wrong."""
    action = data.get("action")
    if not isinstance(action, str):  # {} or [] would not even hash in the lookup below
        said = 'Missing "action"' if action is None else '"action" must be text'
        raise BadMessage(f"{said}: use {', '.join(HOST_ACTIONS)}.")
    if action not in _FIELDS:
        raise BadMessage(f"Unknown host action {action[:40]!r}: use {', '.join(HOST_ACTIONS)}.")
    allowed = ("action", "id", "HEADERS", *_FIELDS[action])
    unknown = [key for key in data if key not in allowed]
    if unknown:
        names = ", ".join(repr(str(key)[:40]) for key in unknown[:10])
        takes = ", ".join(f'"{name}"' for name in _FIELDS[action]) or "nothing more"
        raise BadMessage(f"Unknown field {names}: {action} takes {takes}.")
    if action == "cap":
        return HostCommand(action, players=whole_number(data, "players"))
    if action in ("visibility", "spectator_count"):
        name = "public" if action == "visibility" else "shown"
        return HostCommand(action, on=_switch(data, name))
    if action == "transfer":
        return HostCommand(action, seat=whole_number(data, "seat"))
    if action in ("kick", "mute", "unmute"):
        return _whom(action, data)
    return HostCommand(action)


def _switch(data: dict[str, Any], name: str) -> bool:
    """A true/false field; forms send "true" and "false" as text."""
    value = data.get(name)
    if value is True or value == "true":
        return True
    if value is False or value == "false":
        return False
    raise BadMessage(f'"{name}" must be true or false, got {str(value)[:40]!r}.')


def _whom(action: str, data: dict[str, Any]) -> HostCommand:
    named = [key for key in ("seat", "spectator", "spectators") if data.get(key) not in (None, "")]
    if len(named) != 1:
        raise BadMessage(WHOM if action == "kick" else WHOM[:-1] + ', or "spectators": true.')
    if named == ["seat"]:
        return HostCommand(action, seat=whole_number(data, "seat"))
    if named == ["spectators"]:
        if not _switch(data, "spectators"):
            raise BadMessage('"spectators" must be true: it names every spectator.')
        return HostCommand(action, spectators=True)
    spectator = data["spectator"]
    if not isinstance(spectator, str) or len(spectator) != SPECTATOR_HANDLE:
        raise BadMessage(f'"spectator" must be a handle of {SPECTATOR_HANDLE} characters.')
    return HostCommand(action, spectator=spectator)


@dataclass(frozen=True, slots=True)
class Leave:
    """The sender's seat leaves the room for good (`games.rooms.leaving`)."""

    action: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class TakeName:
    """A spectator's name for this socket, which their chat lines carry (`live.seat_messages`); checked
    there, as a nickname is."""

    action: ClassVar[str] = "name"

    name: object


SEAT_FIELDS = {"leave": (), "name": ("name",)}
"""What `leave` and `name` may carry besides `action` (and a socket's `id` and `HEADERS`)."""


def seat_message(data: dict[str, Any]) -> Leave | TakeName:
    """`{"action": "leave"}` or `{"action": "name", "name": "Cy"}`, on the socket only (the
    API has `POST /api/rooms/<code>/leave`)."""
    action = data["action"]
    unknown = [key for key in data if key not in ("action", "id", "HEADERS", *SEAT_FIELDS[action])]
    if unknown:
        names = ", ".join(repr(str(key)[:40]) for key in unknown[:10])
        takes = '"name"' if action == "name" else "nothing more"
        raise BadMessage(f"Unknown field {names}: {action} takes {takes}.")
    if action == "leave":
        return Leave()
    if "name" not in data:
        raise BadMessage('Missing "name": the name to watch under, 1 to 24 characters.')
    return TakeName(data["name"])


Message = (
    CellMove | SquareMove | Command | Hover | Ping | React | Chat | HostCommand | Leave | TakeName
)
"""Every message value; each has the `action` it came by (`message_table`)."""


def cell_move(action: str, data: dict[str, Any]) -> CellMove:
    return CellMove(action, whole_number(data, "x"), whole_number(data, "y"))


def square_move(action: str, data: dict[str, Any]) -> SquareMove:
    return SquareMove(whole_number(data, "cell"))


def command(action: str, data: dict[str, Any]) -> Command:
    """The shell's commands and a kind's own: `game` for any, `pace` for `add_bot`."""
    game = whole_number(data, "game") if data.get("game") not in (None, "") else None
    given = action == "add_bot" and data.get("pace") not in (None, "")
    return Command(action, game, whole_number(data, "pace") if given else None)


def hover(action: str, data: dict[str, Any]) -> Hover:
    return Hover(whole_number(data, "x"), whole_number(data, "y"))


MAX_ID_CHARS = 64
"""The longest string `id` a socket message may carry, for its reply to repeat."""


def echoable_id(found: object) -> bool:
    """Whether a message's `id` can be repeated in its reply: none, a short string, or an
    integer JSON readers keep exactly (below 2**53). Another is refused with its message, not
    dropped from the reply, so a bot matching replies by `id` is never left waiting."""
    if found is None:
        return True
    if isinstance(found, str):
        return len(found) <= MAX_ID_CHARS
    return isinstance(found, int) and not isinstance(found, bool) and abs(found) < 2**53


def signal(action: str, data: dict[str, Any]) -> Ping | React:
    """A ping's cell or a reaction's emote name; whether the room takes it is `rooms.signals`'."""
    if action == "ping":
        return Ping(whole_number(data, "x"), whole_number(data, "y"))
    emote = data.get("emote")
    if not isinstance(emote, str) or not emote:
        raise BadMessage('Missing "emote": name one of the emotes the page offers.')
    return React(emote[:40])


def chat(action: str, data: dict[str, Any]) -> Chat:
    """A chat line's own fields: its `text`, not a move's fields."""
    unknown = [key for key in data if key not in CHAT_FIELDS]
    if unknown:
        names = ", ".join(repr(str(key)[:40]) for key in unknown[:10])
        raise BadMessage(f'Unknown field {names}: a chat message takes "action" and "text".')
    if "text" not in data:
        raise BadMessage('Missing "text": the chat line, 1 to 200 characters.')
    return Chat(data["text"])


DIGITS = re.compile(r"-?[0-9]{1,12}")
"""A number as text: ASCII digits with at most one leading minus. Not `str.isdigit`, which takes
"²" and "٣" that `int` then refuses, and not `int` alone, which takes " 1", "1_000" and "+1"."""


def whole_float(value: Any) -> Any:
    """A whole-valued float as an integer: JSON Schema's `integer` takes `5.0` (JSON has one
    number type), so the API's schema promises it, and a body with one is taken as 5. Nothing
    else loosens: `5.5`, `"5"` and `true` are still no integer where one is wanted."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def whole_floats(data: Any) -> Any:
    """An object's whole-valued floats as integers (`whole_float`)."""
    if not isinstance(data, dict):
        return data
    return {key: whole_float(value) for key, value in data.items()}


def whole_number(data: dict[str, Any], key: str) -> int:
    """An integer field; digit strings count (form fields arrive as text), and so do whole
    floats (`whole_floats`), anything else not."""
    value = whole_float(data.get(key))
    if isinstance(value, str) and DIGITS.fullmatch(value):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is None:
        raise BadMessage(f'Missing "{key}": it must be a whole number.')
    raise BadMessage(f'"{key}" must be a whole number, got {str(value)[:40]!r}.')
