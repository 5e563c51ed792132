"""The JSON API for bots and scripts: the same service layer as the browser, so moves made here
appear live on every screen in the room. Schema and interactive docs at /api/docs."""

import math
import time
from typing import Any, Literal

from django.conf import settings as django_settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import Field, NinjaAPI, Query, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer
from pydantic import ConfigDict

from .. import history, services
from ..kinds import KINDS, kind_for, kind_of
from ..kinds.table import GameKind, Invalid, Refused, SettingsError
from ..live import autoplay
from ..live.flood import TOO_FAST, move_wait
from ..messages import BadMessage, Command, parse_payload
from ..models import Player, Room, is_room_code
from .room_limit import (
    client_address,
    hint_reservation,
    join_reservation,
    release_room_hint,
    room_hint_allowed,
    room_reservation,
    too_many_builds,
)


class NotJson(Exception):
    """A request body sent as something other than `application/json`."""


class JsonOnly(Parser):
    """Bodies only as `Content-Type: application/json`. A page on another site can post
    `text/plain` (or a form) here without a CORS preflight; create and join need no token, so
    that would let any site a visitor opens make rooms and take seats from their address."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        if request.content_type != "application/json":
            raise NotJson(request.content_type)
        return super().parse_body(request)


api = NinjaAPI(
    title="Minesweeper Live API",
    version="1",
    description=(
        "Create rooms, join them and play moves. Moves go through the same service as the "
        'browser, so everyone in the room sees them live. Errors are `{"error": "..."}`.'
    ),
    urls_namespace="api",
    parser=JsonOnly(),
)


STRICT = ConfigDict(strict=True)
"""JSON types as the schema says: `0.0` is not a boolean and `"3"` not a number (bots send JSON)."""


class Error(Schema):
    error: str


class CreateRoom(Schema):
    model_config = STRICT
    game: str = Field(
        next(iter(KINDS)),
        json_schema_extra={"enum": [n for n, k in KINDS.items() if k.api_game is None]},
    )
    name: str = Field("Bot", min_length=1, max_length=24)
    public: bool = False
    # Minesweeper: a preset, or width, height and mines (at most width*height - 9).
    preset: Literal["beginner", "intermediate", "expert"] | None = None
    width: int | None = Field(None, ge=2, le=50)
    height: int | None = Field(None, ge=2, le=50)
    mines: int | None = Field(None, ge=1, le=2491)
    mode: Literal["coop", "race"] = "coop"
    no_guess: bool | None = Field(None, description="Default: false in co-op, true in a race.")
    # Race options (mode "race"): seconds a mine freezes the board (0, 3, 5, 10, 20) or
    # elimination, a time limit (0 none, 60..1200 s), how far behind spectators watch (0, 3, 5,
    # 10 s) and the Solver bot's pace when the host adds it (1, 2 or 4 safe cells a second).
    penalty_seconds: int | None = None
    eliminate: bool | None = None
    time_limit_seconds: int | None = None
    spectator_delay_seconds: int | None = None
    bot_pace: int | None = None
    # Tic-tac-toe seats (human, random, perfect; default X human, O perfect) and Flags seats
    # (human, easy, strong; default X human, O strong); each kind checks its own.
    x: Literal["human", "random", "perfect", "easy", "strong"] | None = None
    o: Literal["human", "random", "perfect", "easy", "strong"] | None = None
    # Flags: seconds a turn may take before it passes (0, 15, 30 or 60; 0 is no timer).
    turn_seconds: int | None = None


class Created(Schema):
    code: str
    url: str
    player_token: str | None


class Join(Schema):
    model_config = STRICT
    name: str = Field(min_length=1, max_length=24)


class Joined(Schema):
    player_token: str
    name: str = Field(
        description='The name given: the one asked for, or "Ana 2" when someone in the room '
        "has it already (compared regardless of case)."
    )


class PlayerOut(Schema):
    name: str
    seat: int
    online: bool


class RoomState(Schema):
    game: str
    number: int
    status: str
    version: int
    width: int
    height: int
    mines_left: int | None = None
    board: list[str]
    players: list[PlayerOut]
    winner: Literal["X", "O"] | None = Field(
        None,
        description="Tic-tac-toe and Flags: the winner's side; null while playing (and after a "
        "tic-tac-toe draw).",
    )
    you: Literal["X", "O"] | None = Field(
        None,
        description="Tic-tac-toe and Flags: the side your seat holds this game, when the request "
        "carries your player token (null without a seat in this game).",
    )
    turn: Literal["X", "O"] | None = Field(
        None, description="Flags: the side to move; null once the game is over."
    )
    scores: dict[str, int] | None = Field(
        None, description='Flags: mines claimed per side, {"X": n, "O": n}.'
    )
    bombs: dict[str, bool] | None = Field(
        None, description='Flags: whether each side still holds its bomb, {"X": true, "O": false}.'
    )
    mines: int | None = Field(None, description="Flags: mines on the board.")
    to_win: int | None = Field(None, description="Flags: mines a side needs to win.")
    race: dict[str, Any] | None = Field(
        None,
        description="A race: its `phase` (lobby, countdown, racing, over), `go_in_ms`, `you` "
        "(your racer, with your token) and `racers` (each one's seat, standing, progress 0..100, "
        "mines hit, frozen_ms, time_ms), and at the end `results` (place, time_ms, mines_hit, "
        "three_bv, bv_per_s, clicks, ioe). `board` is your own board; without a racer's token "
        "it is all hidden.",
    )
    turn_seconds: int | None = Field(
        None, description="Flags: the turn timer in seconds (0: none); a turn past it passes."
    )
    turn_deadline: float | None = Field(
        None,
        description="Flags with a turn timer: Unix time (seconds) at which the current turn "
        "passes; null before the game's first move, without a timer, and once it is over.",
    )


class MoveIn(Schema):
    model_config = STRICT
    action: str
    x: int | None = None
    y: int | None = None
    cell: int | None = None
    pace: int | None = None


class MoveOut(Schema):
    version: int
    status: str
    changed: list[dict[str, Any]]


class HintOut(Schema):
    x: int
    y: int


class PlayerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> str | None:
        return token or None


def error(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return api.create_response(request, {"error": message}, status=status)


@api.exception_handler(ValidationError)
def invalid_body(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "payload"))
    return error(request, f"{where or 'body'}: {first.get('msg', 'invalid input')}", 400)


@api.exception_handler(AuthenticationError)
def no_token(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error(request, "Send your player token as 'Authorization: Bearer <token>'.", 401)


class TooFast(Exception):
    """Over a move budget (`flood.move_wait`): 429, with when to try again."""

    def __init__(self, wait: float) -> None:
        super().__init__(TOO_FAST)
        self.wait = wait


@api.exception_handler(TooFast)
def too_fast(request: HttpRequest, exc: TooFast) -> HttpResponse:
    response = error(request, str(exc), 429)
    response["Retry-After"] = str(max(1, math.ceil(exc.wait)))
    return response


@api.exception_handler(RequestDataTooBig)
def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    """Past Django's body limit: ninja passes it on, and Django would answer an HTML 400 (a 500
    with a traceback under DEBUG)."""
    limit = django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return error(request, f"The body is too large: at most {limit:,} bytes.", 413)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc.__cause__, NotJson):  # ninja wraps every parser error in a 400
        return error(request, "Send the body as JSON, with 'Content-Type: application/json'.", 415)
    return error(request, str(exc), exc.status_code)


def find_room(code: str) -> Room:
    room = Room.objects.filter(code=code).first() if is_room_code(code) else None
    if room is None:
        raise HttpError(404, "No room with that code.")
    return room


def kind_named(body: CreateRoom) -> GameKind:
    """The kind a create body names by `game` and `mode` (a race is Minesweeper's mode)."""
    games = [name for name, kind in KINDS.items() if kind.api_game is None]
    try:
        return kind_for(body.game, body.mode)
    except ValueError:
        if body.game in KINDS and KINDS[body.game].api_game is None:
            raise HttpError(400, f"mode: {body.game} has no mode {body.mode!r}.") from None
        raise HttpError(
            400, f"game: unknown game {body.game[:40]!r}; choose {', '.join(games)}."
        ) from None


def catch_up(room: Room) -> None:
    """The room's timed events now due (a race's Go, a penalty's end), before a bot reads or
    moves: the live clock runs only while a socket is in the room, and a bot may only poll."""
    due = services.clock_due(room)
    if due is not None and due[2] <= time.time():
        services.tick(room)


def room_settings(kind: GameKind, body: CreateRoom) -> dict[str, Any]:
    try:
        return kind.api_settings(body.dict())
    except SettingsError as exc:
        raise HttpError(400, str(exc)) from None


@api.post(
    "/rooms", response={201: Created, 400: Error, 415: Error, 429: Error}, summary="Create a room"
)
def create_room(request: HttpRequest, body: CreateRoom) -> Status:
    """The creator takes the first seat that is a person (for tic-tac-toe: X if X is human, else O;
    no seat when both are computers). At most 10 rooms a minute per client address (429). The
    room and the creator's seat are made together: a refused name leaves no room behind."""
    with room_reservation(request, time.time()) as reservation:  # only rooms made count
        if reservation is None:
            raise HttpError(429, "Too many new rooms from your address: wait a minute.")
        kind = kind_named(body)
        settings = room_settings(kind, body)
        creator = body.name if kind.creator_sits(settings) else None
        try:
            room, player = services.open_room(kind.name, settings, creator, is_public=body.public)
        except services.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        reservation.keep()
    token = None if player is None else player.token
    services.play_computer_turns(room)  # a computer holding X opens (two computers play it out)
    url = request.build_absolute_uri(f"/r/{room.code}/")
    return Status(201, {"code": room.code, "url": url, "player_token": token})


@api.post(
    "/rooms/{code}/join",
    response={200: Joined, 400: Error, 404: Error, 409: Error, 415: Error, 429: Error},
    summary="Join a room",
)
def join_room(request: HttpRequest, code: str, body: Join) -> dict[str, str]:
    """Names are unique in a room (compared regardless of case): when someone has the name
    already, you get the first free "Ana 2", "Ana 3"…, and `name` says which. Names are
    normalised (NFKC, invisible characters dropped, spaces collapsed) and need one visible
    character. 409 when the room's 50 seats are taken (watching is still open); 429 past 20
    joins a minute from one client address."""
    room = find_room(code)
    with join_reservation(request, time.time()) as reservation:  # only seats taken count
        if reservation is None:
            raise HttpError(429, "Too many joins from your address: wait a minute.")
        try:
            player = services.join_room(room, body.name)
        except services.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        except services.RoomFull as exc:
            raise HttpError(409, str(exc)) from None
        reservation.keep()
    return {"player_token": player.token, "name": player.nickname}


@api.get(
    "/rooms/{code}",
    response={200: RoomState, 404: Error},
    summary="Read a room's game",
    exclude_unset=True,  # only the fields the room's kind gives: no Minesweeper `winner: null`
)
def read_room(request: HttpRequest, code: str) -> dict[str, Any]:
    """The board as text rows, as the terminal shows it: `#` hidden, `F` flag, `_` empty,
    `1`-`8`, and after a loss `*` mine, `!` the exploded one, `X` a wrong flag. Tic-tac-toe rows
    are three characters of `X`, `O` and `.`, with `winner` and, for a request that carries a
    player's token (`Authorization: Bearer <player_token>`, optional here), `you`. Flags rows
    show `x` / `o` for mines claimed by X / O, with `turn`, `scores`, `bombs`, `winner`, `you`
    and, with a turn timer, `turn_deadline`."""
    room = find_room(code)
    catch_up(room)
    game = room.current_game()
    rows, extra = kind_of(room.kind).text_rows(game.state, game.params, reader_seat(request, room))
    players = [
        {"name": p.nickname, "seat": p.number, "online": p.online} for p in room.players.all()
    ]
    return {
        "game": room.kind,
        "number": game.number,
        "status": game.status,
        "version": game.version,
        "board": rows,
        "players": players,
        **extra,
    }


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
    any: `{"action": "new_game"}`. The host of a
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
    wait = move_wait(player.pk, client_address(request), time.monotonic())
    if wait:
        raise TooFast(wait)
    catch_up(room)
    try:
        message = parse_payload(body.dict(exclude_none=True))
        if isinstance(message, Command) and message.name in ("hint", "sync"):
            raise BadMessage(
                f'"{message.name}" is not a move here: ask for hints with POST '
                "/api/rooms/<code>/hint, read the board with GET /api/rooms/<code>."
            )
        outcome = services.play(room, player, message)
    except (BadMessage, Invalid) as exc:
        raise HttpError(400, str(exc)) from None
    except services.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    except Refused as exc:
        raise HttpError(409, str(exc)) from None
    changed_cells = kind_of(room.kind).changed_cells
    changed = changed_cells(outcome.applied)
    for reply in services.play_computer_turns(room):  # computers that answer at once
        changed += changed_cells(reply.applied)
    autoplay.wake(room, outcome.game)  # the others play on live, at a person's pace
    game = room.current_game()
    return {"version": game.version, "status": game.status, "changed": changed}


@api.post(
    "/rooms/{code}/hint",
    auth=PlayerToken(),
    response={200: HintOut, 400: Error, 401: Error, 403: Error, 404: Error, 409: Error, 429: Error},
    summary="Ask for a hint",
)
def hint(request: HttpRequest, code: str) -> dict[str, int]:
    """Minesweeper: `{"x", "y"}` of a hidden cell the public board proves safe (the revealed
    numbers and the mine count; never flags). Everyone in the room sees it outlined and the
    room's hint counter goes up. 409 when no cell can be proved safe (that still counts as a hint:
    the room hears that a guess is needed) or when the game is over (not counted). 429 past
    `HINTS_PER_MINUTE` hints from one client address (30), or when the room had a hint in the
    last `HINT_ROOM_SECONDS` (1)."""
    room = find_room(code)
    player = player_of(request, room)
    with hint_reservation(request, time.time()) as reservation:  # only answered hints count
        if reservation is None:
            raise HttpError(429, "Too many hints from your address: wait a minute.")
        if not room_hint_allowed(room.pk):
            raise HttpError(429, "A hint was just given in this room: ask again in a second.")
        try:
            outcome = services.ask_hint(room, player)
        except Invalid as exc:
            raise HttpError(400, str(exc)) from None
        except services.Forbidden as exc:
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


class Revoked(Schema):
    seat: int
    name: str
    player_token: str = Field(description="The seat's new token, for the host to hand over.")


@api.post(
    "/rooms/{code}/seats/{seat}/revoke",
    auth=PlayerToken(),
    response={200: Revoked, 400: Error, 401: Error, 403: Error, 404: Error},
    summary="Revoke a seat's token (host only)",
)
def revoke(request: HttpRequest, code: str, seat: int) -> dict[str, Any]:
    """The room's host gives seat `seat` a new token: the old one gets 403 from now on and the
    seat's open websockets close with 4403. Tokens never expire otherwise. The answer carries
    the new token; nobody else learns it. 403 for anyone but the host; 400 for the host's own
    seat or a seat the room does not have."""
    room = find_room(code)
    host = player_of(request, room)
    try:
        player = services.revoke_token(room, host, seat)
    except Invalid as exc:
        raise HttpError(400, str(exc)) from None
    except services.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return {"seat": player.number, "name": player.nickname, "player_token": player.token}


def reader_seat(request: HttpRequest, room: Room) -> int | None:
    """The seat of the player whose token a read carries, else None: reading needs no token,
    so a missing or unknown one only leaves out what is the seat's own."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    player = services.find_player(room, token.strip()) if scheme.lower() == "bearer" else None
    return None if player is None else player.number


def player_of(request: HttpRequest, room: Room) -> Player:
    player = services.find_player(room, request.auth)
    if player is None:
        raise HttpError(403, "That token is not a player in this room.")
    return player


class LoggedMoveOut(Schema):
    seq: int
    ms: int | None = Field(description="Milliseconds since the game's first move.")
    seat: int = Field(description="The mover's seat; 2147483647 for a computer.")
    action: str
    x: int | None = None
    y: int | None = None
    cell: int | None = None


class SeatBoardOut(Schema):
    seat: int
    rows: list[str]


class GameOut(Schema):
    game: str
    number: int
    status: str
    version: int
    width: int | None = None
    height: int | None = None
    stats: dict[str, Any] | None = Field(
        None,
        description="Minesweeper: time_ms, time_s, clicks and per player seat, name, clicks and "
        "cells_revealed; once the game is over also three_bv, bv_per_s, ioe, hit_by and per "
        "player right_flags, wrong_flags and hit_mine. Tic-tac-toe: time_ms, moves, winner. "
        "A finished race: the winner's time_ms, time_s, bv_per_s, clicks and ioe, the board's "
        "three_bv, winner (seat) and winner_name, and per racer by place: seat, name, place, "
        "standing, time_ms, mines_hit, three_bv, bv_per_s, clicks, ioe, progress.",
    )
    moves: list[LoggedMoveOut] = Field(
        description="The logged moves after `after`, in order, at most `limit` of them "
        f"({history.MOVES_PER_PAGE} by default and at most)."
    )
    next: str | None = Field(
        None,
        description="The address of the moves after these, or null when these are the last "
        "(as of `version`: a game under way may log more).",
    )
    board: list[str] | None = Field(None, description="The board after the last move.")
    boards: list[SeatBoardOut] | None = Field(
        None,
        description="A finished race: every racer's board at the end, by seat (`board` is "
        "null); a race under way shows neither, nor its moves.",
    )
    mines: list[tuple[int, int]] | None = Field(
        None, description="Every mine as [x, y] once the game is over; null before."
    )


@api.get(
    "/rooms/{code}/games/{number}",
    response={200: GameOut, 400: Error, 404: Error, 429: Error},
    summary="Read one game of a room: statistics and moves",
    exclude_unset=True,
)
def read_game(
    request: HttpRequest,
    code: str,
    number: int,
    after: int = Query(0, ge=0, description="Only the moves whose `seq` is above this."),
    limit: int = Query(
        history.MOVES_PER_PAGE,
        ge=1,
        le=history.MOVES_PER_PAGE,
        description="At most this many moves; `next` gives the address of the rest.",
    ),
) -> dict[str, Any] | HttpResponse:
    """A game of the room by its number (1, 2, ...), over or under way: its statistics, its
    logged moves a page at a time (`after`, `limit`, `next`), and once it is over the mine
    layout. Before the end it shows only what every player sees: no mine, and no figure that
    depends on where they are (3BV, flags)."""
    room = find_room(code)
    game = room.games.filter(number=number).first()
    if game is None:
        raise HttpError(404, f"This room has no game {number}.")
    if history.view_costly(room, game):
        refused = too_many_builds(request)
        if refused is not None:
            response = error(request, refused[0], 429)
            response["Retry-After"] = str(refused[1])
            return response
    view = history.game_view(room, game)
    moves, more = history.page_of(view["moves"], after, limit)
    link = None
    if more:
        link = f"{request.path}?after={moves[-1]['seq']}" + (
            f"&limit={limit}" if limit != history.MOVES_PER_PAGE else ""
        )
    return view | {"moves": moves, "next": link}
