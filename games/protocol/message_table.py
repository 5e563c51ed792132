"""One table of the messages a room takes, for the socket and the API's `/moves` alike (as
lila-ws keeps every message shape in `ipc/`): per message its name, the value it parses into and
its parser, who may send it, the budget it spends, the door it may come by, the word the metrics
count its refusals under, and the handler that carries it out.

A door reads a frame or a body through `read_payload` (the entry and the value), checks what the
entry says it may check without the database (a spectator's move, the move budget) and calls the
handler the entry names: nothing else decides what a message is. Handlers are named here
(`Handler`), not imported: this layer sits below the actions (`games.rooms`) and the transport
(`games.live`) that carry them out, and each door maps the names it serves to its own functions
(`live.receiving.HANDLERS`, `rooms.dispatch.PLAYS`), checked complete by the tests. A table of
names keeps every message readable in one place, with no registration at import time.

The fields are parsed by plain functions into the frozen values of `messages`, not by a pydantic
model per message: the texts a refused message gets (which field is unknown, cut to 40
characters; "1" taken where a number is wanted and "²" not) are the socket's contract, and the
API's `MoveIn` already validates its body as a pydantic model before this table reads it.
"""

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from typing import Any

from . import messages as m
from .messages import BadMessage, Message, TooLarge


class Sender(StrEnum):
    """Who may send a message. A door refuses a spectator's `SEAT` or `HOST` message that needs
    no database to refuse (`rooms.base.refuse_spectator`); the handler checks the rest (whether
    the sender hosts the room, holds the seat)."""

    ANYONE = "anyone"
    SEAT = "seat"
    HOST = "host"


class Budget(StrEnum):
    """What a message spends besides the socket's frame budget (`flood`): the door spends the
    `MOVE` budget, which a seat's moves share over both doors (`flood.move_budget`); the others
    are spent by the action itself, which every door of it shares (`rooms.chat`, `rooms.signals`,
    `rooms.hints`)."""

    NONE = "none"
    MOVE = "move"
    CHAT = "chat"
    SIGNAL = "signal"
    HINT = "hint"


class Handler(StrEnum):
    """What carries a message out; each door maps the names it serves to its functions."""

    MOVE = "move"
    NEW_GAME = "new_game"
    SET_BOT = "set_bot"
    KIND_COMMAND = "kind_command"
    HINT = "hint"
    SYNC = "sync"
    HOVER = "hover"
    SIGNAL = "signal"
    CHAT = "chat"
    HOST = "host"
    LEAVE = "leave"
    NAME = "name"


class MovesDoor(StrEnum):
    """Whether `POST /api/rooms/<code>/moves` takes a message, and how it refuses one it does
    not: as an unknown action, as presence, or as what another endpoint does."""

    TAKEN = "taken"
    UNKNOWN = "unknown"
    PRESENCE = "presence"
    ELSEWHERE = "elsewhere"


Parser = Callable[[str, dict[str, Any]], Message]


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    value: object
    """The message value (or values) it parses into (`messages`)."""
    parse: Parser
    sender: Sender
    budget: Budget
    refusal: str
    """The metrics' reason for a refusal of it (`metrics.refused`): a few fixed words."""
    handler: Handler
    moves_door: MovesDoor = MovesDoor.UNKNOWN
    own_fields: bool = False
    """Its parser checks its fields itself (chat, host and seat messages); the others take the
    fields every move may carry (`messages.FIELDS`)."""

    def refused_at_moves_door(self, help_text: str) -> str:
        """The text `/moves` refuses this message with, when it does not take it."""
        match self.moves_door:
            case MovesDoor.PRESENCE:
                return f'"{self.name}" is presence, not a move: send it on the room websocket.'
            case MovesDoor.ELSEWHERE:
                return (
                    f'"{self.name}" is not a move here: ask for hints with POST '
                    "/api/rooms/<code>/hint, read the board with GET /api/rooms/<code>."
                )
        return f"Unknown action {self.name!r}: {help_text}."


def _host(action: str, data: dict[str, Any]) -> Message:
    return m.host_command(data)


def _seat(action: str, data: dict[str, Any]) -> Message:
    return m.seat_message(data)


# Shorthand for the columns of the table below.
ANY, SEAT, HOST = Sender.ANYONE, Sender.SEAT, Sender.HOST
NONE, MOVE, CHAT, SIGNAL, HINT = Budget.NONE, Budget.MOVE, Budget.CHAT, Budget.SIGNAL, Budget.HINT
TAKEN, UNKNOWN = MovesDoor.TAKEN, MovesDoor.UNKNOWN
PRESENCE, ELSEWHERE = MovesDoor.PRESENCE, MovesDoor.ELSEWHERE
H = Handler
OWN = True
"""Its parser checks its fields itself."""
BOT_COMMANDS = ("add_bot", "remove_bot")
CELL, HOSTING = m.CELL_ACTIONS, m.HOST_ACTIONS

# fmt: off
_ROWS: tuple[tuple[Any, ...], ...] = (
    # actions      value           parser         sender budget metrics  handler     /moves   fields
    (CELL,         m.CellMove,     m.cell_move,   SEAT, MOVE,   "move",   H.MOVE,     TAKEN),
    (("mark",),    m.SquareMove,   m.square_move, SEAT, MOVE,   "move",   H.MOVE,     TAKEN),
    (("new_game",),m.Command,      m.command,     SEAT, MOVE,   "move",   H.NEW_GAME, TAKEN),
    (BOT_COMMANDS, m.Command,      m.command,     HOST, MOVE,   "move",   H.SET_BOT,  TAKEN),
    (("hint",),    m.Command,      m.command,     SEAT, HINT,   "hint",   H.HINT,     ELSEWHERE),
    (("sync",),    m.Command,      m.command,     ANY,  NONE,   "move",   H.SYNC,     ELSEWHERE),
    (("hover",),   m.Hover,        m.hover,       SEAT, NONE,   "move",   H.HOVER,    UNKNOWN),
    (m.SIGNALS,    m.Ping|m.React, m.signal,      SEAT, SIGNAL, "signal", H.SIGNAL,   PRESENCE),
    (("chat",),    m.Chat,         m.chat,        ANY,  CHAT,   "chat",   H.CHAT,     UNKNOWN, OWN),
    (HOSTING,      m.HostCommand,  _host,         HOST, NONE,   "host",   H.HOST,     UNKNOWN, OWN),
    (("leave",),   m.Leave,        _seat,         SEAT, NONE,   "seat",   H.LEAVE,    UNKNOWN, OWN),
    (("name",),    m.TakeName,     _seat,         ANY,  NONE,   "seat",   H.NAME,     UNKNOWN, OWN),
)
# fmt: on

TABLE: dict[str, Entry] = {name: Entry(name, *row[1:]) for row in _ROWS for name in row[0]}
"""Every message of the shell, by the `action` it comes by. A spectator's hover is dropped
quietly by its handler and a spectator's presence signal refused there (`rooms.signals`); `name`
is a spectator's alone (`live.seat_messages`)."""

KIND_COMMAND = Entry("", m.Command, m.command, SEAT, MOVE, "move", H.KIND_COMMAND, TAKEN)
"""A command of the room's kind (a race's `start`, tic-tac-toe's `claim_win`:
`GameKind.commands`), under its own name."""


def entry_for(action: str, commands: Collection[str] = ()) -> Entry | None:
    """The entry of `action` in a room whose kind has these `commands`; None: no such message."""
    entry = TABLE.get(action)
    if entry is None and action in commands:
        return _kind_command(action)
    return entry


@cache
def _kind_command(name: str) -> Entry:
    """`KIND_COMMAND` under a kind's command's name, made once (only kinds' names come here)."""
    return replace(KIND_COMMAND, name=name)


def actions_help(commands: Collection[str] = (), *, moves_door: bool = False) -> str:
    """The actions a room of a kind with these commands takes by one door, for an error's text:
    the socket's, or the API's `/moves` (no `hint` or `sync` there)."""
    actions = (*m.MOVES, "hint", "add_bot", "remove_bot", *commands, "new_game", "sync")
    actions = (*actions[:-1], *m.SIGNALS, "chat", "leave", "name", actions[-1])
    if moves_door:
        actions = tuple(name for name in actions if name not in m.SOCKET_ONLY_ACTIONS)
    *others, last = actions
    return f"use {', '.join(others)} or {last}"


def read_message(text: str | bytes | None, commands: Collection[str] = ()) -> tuple[Entry, Message]:
    """A socket's frame as its entry and value; `commands`: the room's kind's own (a race's
    start)."""
    if text is None:
        raise BadMessage("Send text frames containing JSON.")
    if len(text) > m.MAX_MESSAGE_BYTES:
        raise TooLarge(f"Message too large: the limit is {m.MAX_MESSAGE_BYTES} bytes.")
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep [[[[ may exhaust the stack
        raise BadMessage("Message is not valid JSON.") from None
    if not isinstance(data, dict):
        raise BadMessage('Message must be a JSON object with an "action".')
    return read_payload(data, commands)


def read_payload(
    data: dict[str, Any], commands: Collection[str] = (), *, moves_door: bool = False
) -> tuple[Entry, Message]:
    """A decoded JSON object (from a socket, or the API's /moves: `moves_door`) as its entry and
    value; `commands` are the room's kind's own (`GameKind.commands`)."""
    if not moves_door and not m.echoable_id(data.get("id")):
        raise BadMessage(
            f'"id" must be a string of at most {m.MAX_ID_CHARS} characters or an integer '
            "(it is repeated in the reply): nothing was done."
        )
    action = data.get("action")
    entry = entry_for(action, commands) if isinstance(action, str) else None
    if entry is not None and entry.own_fields and not moves_door:
        return entry, entry.parse(entry.name, data)
    allowed = m.FIELDS if moves_door else (*m.FIELDS, *m.SOCKET_ONLY_FIELDS)
    unknown = [key for key in data if key not in allowed]
    if unknown:
        names = ", ".join(repr(str(key)[:40]) for key in unknown[:10])
        raise BadMessage(
            f"Unknown field{'s' if len(unknown) > 1 else ''} {names}: a message takes "
            f"{', '.join(m.FIELDS)}."
        )
    if not isinstance(action, str) or not action:
        raise BadMessage(f'Missing "action": {actions_help(commands, moves_door=moves_door)}.')
    if entry is None:
        help_text = actions_help(commands, moves_door=moves_door)
        raise BadMessage(f"Unknown action {action[:40]!r}: {help_text}.")
    if moves_door and entry.moves_door is not MovesDoor.TAKEN:
        if entry.moves_door is not MovesDoor.PRESENCE and not entry.own_fields:
            entry.parse(entry.name, data)  # a field's error first, as /moves has always said
        raise BadMessage(entry.refused_at_moves_door(actions_help(commands, moves_door=True)))
    return entry, entry.parse(entry.name, data)


def parse_message(text: str | bytes | None, commands: Collection[str] = ()) -> Message:
    """A socket's frame as a message value (`read_message`)."""
    return read_message(text, commands)[1]


def parse_payload(
    data: dict[str, Any], commands: Collection[str] = (), *, moves_door: bool = False
) -> Message:
    """A decoded JSON object as a message value (`read_payload`)."""
    return read_payload(data, commands, moves_door=moves_door)[1]
