"""Client messages parsed once, at the edge, into small values (or a clear error).

Browsers send form fields through htmx's websocket extension, so numbers may arrive as strings and
a `HEADERS` object rides along; bots send plain JSON. Both end up as the same values here.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE_BYTES = 8 * 1024
CELL_ACTIONS = ("reveal", "flag", "chord", "bomb")
"""Moves on a cell (x, y); each kind takes those it knows (`bomb` is Flags')."""
COMMANDS = (
    "new_game",
    "sync",
    "hint",
    "add_bot",
    "remove_bot",
    "start",
    "give_up",
    "claim_win",
    "take_seat",
)
"""Messages that are not moves: `hint` asks for a provably safe cell (Minesweeper), `add_bot` and
`remove_bot` seat or unseat the Solver bot (the host only; `add_bot` may name its `pace` where
the kind offers several), `start` starts a race (its host) and `give_up` leaves it; `claim_win`
ends a two-sided game whose other player left and `take_seat` takes their seat
(`kinds.seats_away`)."""
ACTIONS_HELP = (
    "use reveal, flag, chord, bomb, mark, hint, add_bot, remove_bot, start, give_up, claim_win, "
    "take_seat, new_game or sync"
)
MOVES_HELP = (
    "use reveal, flag, chord, bomb, mark, add_bot, remove_bot, start, give_up, claim_win, "
    "take_seat or new_game"
)
"""What `POST /api/rooms/<code>/moves` takes: hints and the board have endpoints of their own."""


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


Message = CellMove | SquareMove | Command | Hover


def parse_message(text: str | bytes | None) -> Message:
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
    return parse_payload(data)


def parse_payload(data: dict[str, Any], actions_help: str = ACTIONS_HELP) -> Message:
    """A decoded JSON object (from a socket or the API) as a message value; `actions_help`
    lists what the door it came by takes, for an unknown action's error."""
    action = data.get("action")
    if not isinstance(action, str) or not action:
        raise BadMessage(f'Missing "action": {actions_help}.')
    if action in CELL_ACTIONS:
        return CellMove(action, whole_number(data, "x"), whole_number(data, "y"))
    if action == "hover":
        return Hover(whole_number(data, "x"), whole_number(data, "y"))
    if action == "mark":
        return SquareMove(whole_number(data, "cell"))
    if action in COMMANDS:
        game = whole_number(data, "game") if data.get("game") not in (None, "") else None
        given = action == "add_bot" and data.get("pace") not in (None, "")
        return Command(action, game, whole_number(data, "pace") if given else None)
    raise BadMessage(f"Unknown action {action[:40]!r}: {actions_help}.")


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
