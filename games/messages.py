"""Client messages parsed once, at the edge, into small values (or a clear error).

Browsers send form fields through htmx's websocket extension, so numbers may arrive as strings and
a `HEADERS` object rides along; bots send plain JSON. Both end up as the same values here.
"""

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

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
SOCKET_ONLY_ACTIONS = ("hint", "sync", "hover", "ping", "react", "chat")
"""What `POST /api/rooms/<code>/moves` refuses: hints, the board and the chat have endpoints of
their own, and pings and reactions are presence."""


def actions_help(commands: Collection[str] = (), *, moves_door: bool = False) -> str:
    """The actions a room of a kind with these commands takes by one door, for an error's text:
    the socket's, or the API's `/moves` (no `hint` or `sync` there)."""
    actions = (*MOVES, "hint", "add_bot", "remove_bot", *commands, "new_game", "sync")
    actions = (*actions[:-1], *SIGNALS, "chat", actions[-1])
    if moves_door:
        actions = tuple(name for name in actions if name not in SOCKET_ONLY_ACTIONS)
    *others, last = actions
    return f"use {', '.join(others)} or {last}"


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

    cell: int


@dataclass(frozen=True, slots=True)
class Command:
    """`new_game` may name the game it replaces, so two players clicking at once start one game;
    `add_bot` may carry the bot's `pace` (safe cells a second); `hint`, `remove_bot` and `sync`
    carry nothing."""

    name: str
    game: int | None = None
    pace: int | None = None


@dataclass(frozen=True, slots=True)
class Hover:
    """Where a player's pointer rests: presence, never stored, never part of the game."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Ping:
    """A player points the room at the cell (x, y) for a few seconds: presence, never stored."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class React:
    """A player shows an emote beside their name for a few seconds (`live.signals.EMOTES`)."""

    emote: str


SIGNALS = ("ping", "react")
"""Presence a player sends the room (`live.signals`): by the socket only, never a move."""


@dataclass(frozen=True, slots=True)
class Chat:
    """A line for the room's chat (`games.chat`), checked there: on the socket only, as the API
    has `POST /api/rooms/<code>/chat`."""

    text: object


CHAT_FIELDS = ("action", "text", "id", "HEADERS")
"""What a socket's chat message may carry: its own `text`, not a move's fields."""

Message = CellMove | SquareMove | Command | Hover | Ping | React | Chat


def parse_message(text: str | bytes | None, commands: Collection[str] = ()) -> Message:
    """A socket's frame as a message value; `commands`: the room's kind's own (a race's start)."""
    if text is None:
        raise BadMessage("Send text frames containing JSON.")
    if len(text) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"Message too large: the limit is {MAX_MESSAGE_BYTES} bytes.")
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep [[[[ may exhaust the stack
        raise BadMessage("Message is not valid JSON.") from None
    if not isinstance(data, dict):
        raise BadMessage('Message must be a JSON object with an "action".')
    return parse_payload(data, commands)


def parse_payload(
    data: dict[str, Any], commands: Collection[str] = (), *, moves_door: bool = False
) -> Message:
    """A decoded JSON object (from a socket or the API's /moves) as a message value; `commands`
    are the room's kind's own (`GameKind.commands`), taken as `Command`s beside the shell's;
    `moves_door` says it came by `/moves`, for what an error lists."""
    if data.get("action") == "chat" and not moves_door:
        return _chat(data)
    allowed = FIELDS if moves_door else (*FIELDS, *SOCKET_ONLY_FIELDS)
    unknown = [key for key in data if key not in allowed]
    if unknown:
        names = ", ".join(repr(str(key)[:40]) for key in unknown[:10])
        raise BadMessage(
            f"Unknown field{'s' if len(unknown) > 1 else ''} {names}: a message takes "
            f"{', '.join(FIELDS)}."
        )
    help_text = actions_help(commands, moves_door=moves_door)
    action = data.get("action")
    if not isinstance(action, str) or not action:
        raise BadMessage(f'Missing "action": {help_text}.')
    if action in CELL_ACTIONS:
        return CellMove(action, whole_number(data, "x"), whole_number(data, "y"))
    if action == "hover":
        return Hover(whole_number(data, "x"), whole_number(data, "y"))
    if action in SIGNALS:
        if moves_door:
            raise BadMessage(f'"{action}" is presence, not a move: send it on the room websocket.')
        return signal(action, data)
    if action == "mark":
        return SquareMove(whole_number(data, "cell"))
    if action in COMMANDS or action in commands:
        game = whole_number(data, "game") if data.get("game") not in (None, "") else None
        given = action == "add_bot" and data.get("pace") not in (None, "")
        return Command(action, game, whole_number(data, "pace") if given else None)
    raise BadMessage(f"Unknown action {action[:40]!r}: {help_text}.")


def signal(action: str, data: dict[str, Any]) -> Ping | React:
    """A ping's cell or a reaction's emote name; whether the room takes it is `live.signals`'."""
    if action == "ping":
        return Ping(whole_number(data, "x"), whole_number(data, "y"))
    emote = data.get("emote")
    if not isinstance(emote, str) or not emote:
        raise BadMessage('Missing "emote": name one of the emotes the page offers.')
    return React(emote[:40])


def _chat(data: dict[str, Any]) -> Chat:
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


def whole_number(data: dict[str, Any], key: str) -> int:
    """An integer field; digit strings count (form fields arrive as text), anything else not."""
    value = data.get(key)
    if isinstance(value, str) and DIGITS.fullmatch(value):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is None:
        raise BadMessage(f'Missing "{key}": it must be a whole number.')
    raise BadMessage(f'"{key}" must be a whole number, got {str(value)[:40]!r}.')
