"""`POST /rooms/<code>/moves` (the socket's move bodies) and `/hint`."""

import time
from typing import Any

from django.http import HttpRequest
from ninja import Field, Schema
from ninja.errors import HttpError
from pydantic import field_validator

from ...kinds import kind_of
from ...kinds.table import HostOnly, Invalid, Refused
from ...protocol.flood import TOO_FAST, move_budget
from ...protocol.message_table import read_payload
from ...protocol.messages import BadMessage, whole_float
from ...rooms import autoplay, base, computers, dispatch
from ...rooms import hints as rooms_hints
from ..room_limit import (
    client_address,
    hint_reservation,
    release_room_hint,
    room_hint,
)
from .base import (
    JUST_GIVEN,
    STRICT_CLOSED,
    TOO_MANY_HINTS,
    Error,
    PlayerToken,
    RateLimited,
    api,
    catch_up,
    find_room,
    no_foreign_body,
    player_of,
)
from .schemas import CellOut, ClaimedOut, GameStatus, SquareOut


class MoveIn(Schema):
    """What a websocket message carries too (`message_table.read_payload` reads both)."""

    model_config = STRICT_CLOSED
    action: str = Field(
        min_length=1,
        description="A move (reveal, flag, chord, bomb, mark), `new_game`, `add_bot`, "
        "`remove_bot`, or a command of the room's kind (a race's `start`, `give_up`).",
    )
    x: int | None = Field(None, description="A cell move's column, from 0.")
    y: int | None = Field(None, description="A cell move's row, from 0.")
    cell: int | None = Field(None, description="Tic-tac-toe: the square, 0..8.")
    pace: int | None = Field(None, description="`add_bot` in a race: safe cells a second.")
    game: int | None = Field(
        None,
        description="`new_game`: the number of the game it replaces; 409 when that game was "
        "replaced already (someone else started the next one), so a retry starts no second game.",
    )

    _whole = field_validator("x", "y", "cell", "pace", "game", mode="before")(whole_float)
    """`"x": 3.0` is a JSON Schema integer: taken as 3 (strict mode alone refuses it)."""


class MoveOut(Schema):
    version: int
    status: GameStatus
    changed: list[CellOut | ClaimedOut | SquareOut | dict[str, Any]] = Field(
        description="What the move changed (and a computer's replies after it): Minesweeper "
        "and Flags cells, tic-tac-toe squares; a kind added later lists objects of its own "
        "(`GameKind.changed_cells`), so nothing here changes when a kind is added."
    )


class HintOut(Schema):
    x: int
    y: int


@api.post(
    "/rooms/{code}/moves",
    auth=PlayerToken(),
    response={
        200: MoveOut,
        **dict.fromkeys((400, 401, 403, 404, 409, 415, 429), Error),
    },
    summary="Make a move",
)
def make_move(request: HttpRequest, code: str, body: MoveIn) -> dict[str, Any]:
    """Minesweeper: `{"action": "reveal"|"flag"|"chord", "x", "y"}`; Flags:
    `{"action": "reveal"|"bomb", "x", "y"}`; tic-tac-toe: `{"action": "mark", "cell": 0..8}`;
    any: `{"action": "new_game", "game": N}` (409 when someone replaced game N already; without
    `game` a new game always starts). A kind's own commands (a race's `start`) by name. The
    body takes these fields alone: another is a 400 naming it. The host of a
    Minesweeper room may send `{"action": "add_bot"}` or `{"action": "remove_bot"}`; in a race,
    `{"action": "add_bot", "pace": 1|2|4}` seats the computer racer at that many safe cells a
    second (or sets its pace), for the next race.
    409 when the game's state refuses the move (game over, not your turn) or, in Minesweeper,
    when it could never change its cell (a flag on a revealed cell, a reveal of a flag, a chord
    on a covered cell, a 0 or a number whose flags do not match); a reveal on a revealed cell is
    a click on a number and answers 200, with `changed: []` when nothing opens. In tic-tac-toe
    the computer's reply is played before the answer and listed in `changed` after yours.
    429 (with `Retry-After`) past a seat's move budget, which its websocket moves share (a burst
    of 40, then 20 a second), or its client address's (100, then 50 a second)."""
    room = find_room(code)
    player = player_of(request, room)
    budget = move_budget(player.pk, client_address(request), time.monotonic())
    if not budget.allowed:
        raise RateLimited(TOO_FAST, budget)
    catch_up(room)
    try:
        commands = kind_of(room.kind).commands
        # The table's `/moves` door refuses the socket's own messages, with their texts.
        _, message = read_payload(body.dict(exclude_none=True), commands, moves_door=True)
        outcome = dispatch.play(room, player, message)
        if outcome.replaced is not None:  # as on the socket: no second new game
            raise Refused(
                f"Game {outcome.replaced} was replaced already: game {outcome.game.number} is "
                "the room's current game."
            )
    except (BadMessage, Invalid) as exc:
        raise HttpError(400, str(exc)) from None
    except (base.Forbidden, HostOnly) as exc:
        raise HttpError(403, str(exc)) from None
    except Refused as exc:
        raise HttpError(409, str(exc)) from None
    changed_cells = kind_of(room.kind).api.changed_cells
    changed = changed_cells(outcome.applied)
    for reply in computers.play_computer_turns(room):  # computers that answer at once
        changed += changed_cells(reply.applied)
    autoplay.wake(room, outcome.game)  # the others play on live, at a person's pace
    game = room.current_game()
    return {"version": game.version, "status": game.status, "changed": changed}


@api.post(
    "/rooms/{code}/hint",
    auth=PlayerToken(),
    response={
        200: HintOut,
        **dict.fromkeys((400, 401, 403, 404, 409, 415, 429), Error),
    },
    summary="Ask for a hint",
)
def hint(request: HttpRequest, code: str) -> dict[str, int]:
    """Minesweeper: `{"x", "y"}` of a hidden cell the public board proves safe (the revealed
    numbers and the mine count; never flags). Everyone in the room sees it outlined and the
    room's hint counter goes up. 409 when no cell can be proved safe (that still counts as a hint:
    the room hears that a guess is needed) or when the game is over (not counted). 429 past
    `HINTS_PER_MINUTE` hints from one client address (30), or when the room had a hint in the
    last `HINT_ROOM_SECONDS` (1)."""
    no_foreign_body(request)
    room = find_room(code)
    player = player_of(request, room)
    with hint_reservation(request, time.time()) as reservation:  # only answered hints count
        if not reservation.decision.allowed:
            raise RateLimited(TOO_MANY_HINTS, reservation.decision)
        just_given = room_hint(room.pk, time.time())
        if not just_given.allowed:
            raise RateLimited(JUST_GIVEN, just_given)
        try:
            outcome = rooms_hints.ask_hint(room, player)
        except Invalid as exc:
            raise HttpError(400, str(exc)) from None
        except base.Forbidden as exc:
            raise HttpError(403, str(exc)) from None
        except Refused as exc:
            release_room_hint(room.pk)
            raise HttpError(409, str(exc)) from None
        reservation.keep()
    cell = outcome.applied.summary["hint"]
    if cell is None:
        hints = kind_of(room.kind).hints
        raise HttpError(409, hints.none_found if hints is not None else "No hint.")
    return {"x": cell[0], "y": cell[1]}
