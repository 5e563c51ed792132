"""The JSON API for bots and scripts: the same service layer as the browser, so moves made here
appear live on every screen in the room. Schema and interactive docs at /api/docs."""

import json
import time
from pathlib import Path
from typing import Any, Literal

from django.conf import settings as django_settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import Body, Field, NinjaAPI, Query, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer
from pydantic import ConfigDict

from .. import bot_events, chat, chat_view, history, host, services
from ..kinds import create_options, create_schema, kind_of
from ..kinds.table import HostOnly, Invalid, Refused, SettingsError
from ..limits import Decision, headers
from ..live import autoplay
from ..live.flood import TOO_FAST, move_budget
from ..messages import (
    HOST_ACTIONS,
    BadMessage,
    Command,
    Hover,
    actions_help,
    host_command,
    parse_payload,
)
from ..models import Player, Room, is_room_code
from ..players import api as players_api
from .room_limit import (
    client_address,
    hint_reservation,
    join_reservation,
    release_room_hint,
    room_hint,
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


class Api(NinjaAPI):
    """The API, whose create body is every registered kind's options (`GameKind.options`):
    the schema is the kinds', put in when it is asked for, so this module lists no kind's
    fields and a kind added to `KINDS` shows its options at /api/docs."""

    def get_openapi_schema(self, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(**kwargs)
        create = create_schema()
        schema["components"].setdefault("schemas", {}).update(create.pop("$defs", {}))
        for path in schema["paths"].values():
            post = path.get("post", {})
            if post.get("operationId", "").endswith("_create_room"):
                post["requestBody"]["content"]["application/json"]["schema"] = create
        return schema


api = Api(
    title="Minesweeper Live API",
    version="1",
    description=(
        "Create rooms, join them and play moves. Moves go through the same service as the "
        'browser, so everyone in the room sees them live. Errors are `{"error": "..."}`.'
    ),
    urls_namespace="api",
    parser=JsonOnly(),
)


api.add_router("/", players_api.router)

STRICT = ConfigDict(strict=True)
"""JSON types as the schema says: `0.0` is not a boolean and `"3"` not a number (bots send JSON)."""


class Error(Schema):
    error: str


class Created(Schema):
    code: str
    url: str
    player_token: str | None


class Join(Schema):
    model_config = STRICT
    name: str | None = Field(
        None,
        min_length=1,
        max_length=24,
        description="Your name in the room; not needed (and not used) with an account's "
        "personal token, whose username is the name.",
    )


class Joined(Schema):
    player_token: str
    name: str = Field(
        description='The name given: the one asked for, or "Ana 2" when someone in the room '
        "has it already (compared regardless of case)."
    )


GameStatus = Literal["playing", "won", "lost", "draw"]
"""The game's, not the reader's: in tic-tac-toe and Flags `won` means someone won (`winner`)."""
Side = Literal["X", "O"]
Standing = Literal["racing", "finished", "eliminated", "gave-up", "dnf", "timed-out"]


class CellOut(Schema):
    x: int
    y: int
    state: Literal["hidden", "flagged", "revealed", "mine", "exploded", "wrong-flag"] = Field(
        description="hidden (a flag lifted), flagged, revealed; once a game is lost mine, "
        "exploded (the mine hit) and wrong-flag."
    )
    count: int | None = Field(description="Mines around a revealed cell; null otherwise.")


class ClaimedOut(Schema):
    x: int
    y: int
    state: Literal["claimed"] = Field(description="Flags: a mine found, claimed by `seat`.")
    seat: Side


class SquareOut(Schema):
    cell: int = Field(ge=0, le=8, description="Tic-tac-toe: the square, row by row.")
    mark: Side


class RacerOut(Schema):
    seat: int = Field(description="The racer's seat; 2147483647 for the Solver bot.")
    name: str | None
    standing: Standing
    progress: int = Field(ge=0, le=100)
    mines_hit: int
    frozen_ms: int
    time_ms: int | None
    away: bool
    computer: bool


class ResultOut(Schema):
    seat: int
    name: str | None
    place: int
    standing: Standing
    time_ms: int | None
    mines_hit: int
    three_bv: int
    bv_per_s: float | None
    clicks: int = Field(description="The start cell Go opened counts as the first.")
    ioe: float | None
    progress: int


class RaceOut(Schema):
    phase: Literal["lobby", "countdown", "racing", "over"]
    go_in_ms: int | None
    you: RacerOut | None = Field(description="Your racer, when the request carries its token.")
    racers: list[RacerOut]
    results: list[ResultOut] | None = Field(description="By place, once the race is over.")


class PlayerOut(Schema):
    name: str
    seat: int
    online: bool
    username: str | None = Field(
        description="The account a signed-in person's seat belongs to; null for a guest's."
    )


class RoomState(Schema):
    game: str
    number: int
    status: GameStatus
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
    race: RaceOut | None = Field(
        None,
        description="A race: its phase, every racer's progress, yours with your token, and the "
        "results at the end. `board` is your own board; without a racer's token it is all "
        "hidden.",
    )
    bot: bool | None = Field(
        None,
        description="Minesweeper and races: whether the host seated the Solver bot (a race's "
        "computer racer joins `racers` only at the start).",
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
    """What a websocket message carries too (`messages.parse_payload` reads both)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    action: str = Field(
        description="A move (reveal, flag, chord, bomb, mark), `new_game`, `add_bot`, "
        "`remove_bot`, or a command of the room's kind (a race's `start`, `give_up`)."
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


class RateLimited(Exception):
    """Over a limit (`games.limits`): 429, with `Retry-After` and the RateLimit headers."""

    def __init__(self, message: str, decision: Decision) -> None:
        super().__init__(message)
        self.decision = decision


@api.exception_handler(RateLimited)
def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = error(request, str(exc), 429)
    for name, value in headers(exc.decision).items():
        response[name] = value
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


def no_foreign_body(request: HttpRequest) -> None:
    """An endpoint that takes no body still refuses one of another type than JSON (415), as the
    others do: "all bodies are JSON" (docs/api.md) holds for every door."""
    if not request.body or request.content_type == "application/json":
        return
    if request.content_type == "multipart/form-data" and not request.POST and not request.FILES:
        return  # an empty form: what some clients send for a POST with nothing to say
    raise HttpError(415, "Send the body as JSON, with 'Content-Type: application/json'.")


TOO_MANY_ROOMS = "Too many new rooms from your address: wait a minute."
TOO_MANY_JOINS = "Too many joins from your address: wait a minute."
TOO_MANY_HINTS = "Too many hints from your address: wait a minute."
JUST_GIVEN = "A hint was just given in this room: ask again in a second."


EVENTS_SCHEMA = json.loads((Path(__file__).parent / "events.schema.json").read_text())
"""The websocket's events for bots, as JSON Schema: the OpenAPI document covers HTTP only."""


@api.get("/events.schema.json", include_in_schema=False)
def events_schema(request: HttpRequest) -> HttpResponse:
    """Every event a bot's socket receives (docs/api.md, "Writing a bot")."""
    return HttpResponse(json.dumps(EVENTS_SCHEMA), content_type="application/schema+json")


def find_room(code: str) -> Room:
    room = Room.objects.filter(code=code).first() if is_room_code(code) else None
    if room is None:
        raise HttpError(404, "No room with that code.")
    return room


def catch_up(room: Room) -> None:
    """The room's timed events now due (a race's Go, a penalty's end), before a bot reads or
    moves: the live clock runs only while a socket is in the room, and a bot may only poll."""
    due = services.clock_due(room)
    if due is not None and due[2] <= time.time():
        services.tick(room)


@api.post(
    "/rooms",
    response={201: Created, 400: Error, 401: Error, 415: Error, 429: Error},
    summary="Create a room",
)
def create_room(request: HttpRequest, body: Body[dict[str, Any]]) -> Status:
    """The body names the kind by `game` (and `mode` for a race) and takes that kind's options
    alone: an unknown field, or a preset with a size that disagrees, is a 400 that names it.
    The creator takes the first seat that is a person (for tic-tac-toe: X if X is human, else O;
    no seat when both are computers). At most 10 rooms a minute per client address (429). The
    room and the creator's seat are made together: a refused name leaves no room behind. With
    an account's personal token (`Authorization: Bearer`) the seat is the account's and its
    username the name (`name` is not used); 401 for a token that is no account's."""
    with room_reservation(request, time.time()) as reservation:  # only rooms made count
        if not reservation.decision.allowed:
            raise RateLimited(TOO_MANY_ROOMS, reservation.decision)
        try:
            kind, options = create_options(body)
            settings = options.settings()
        except SettingsError as exc:
            raise HttpError(400, str(exc)) from None
        account = players_api.account_of(request)
        name = options.name if account is None else account.username
        creator = name if kind.creator_sits(settings) else None
        try:
            room, player = services.open_room(
                kind.name,
                settings,
                creator,
                is_public=options.public,
                seed=options.seed,
                account=account,
            )
        except services.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        reservation.keep()
    token = None if player is None else player.token
    services.play_computer_turns(room)  # a computer holding X opens (two computers play it out)
    url = request.build_absolute_uri(f"/r/{room.code}/")
    return Status(201, {"code": room.code, "url": url, "player_token": token})


@api.post(
    "/rooms/{code}/join",
    response={
        200: Joined,
        400: Error,
        401: Error,
        403: Error,
        404: Error,
        409: Error,
        415: Error,
        429: Error,
    },
    summary="Join a room",
)
def join_room(request: HttpRequest, code: str, body: Join) -> dict[str, str]:
    """Names are unique in a room (compared regardless of case): when someone has the name
    already, you get the first free "Ana 2", "Ana 3"…, and `name` says which. Names are
    normalised (NFKC, invisible characters dropped, spaces collapsed) and need one visible
    character. 409 when the host locked the room or its player cap (8 unless the host set
    another, at most 50) is reached, with the reason (watching is still open); 429 past 20
    joins a minute from one client address. With an account's personal token
    (`Authorization: Bearer`, from `POST /api/accounts/token`) the seat is the account's, named
    by its username; an account that holds a seat here already gets it back (its token again),
    and one the host kicked gets 403 until the kick ends. 401 for a token that is no
    account's."""
    room = find_room(code)
    account = players_api.account_of(request)
    name = body.name if account is None else account.username
    if name is None:
        raise HttpError(400, "name: Field required (or send an account's personal token).")
    with join_reservation(request, time.time()) as reservation:  # only seats taken count
        if not reservation.decision.allowed:
            raise RateLimited(TOO_MANY_JOINS, reservation.decision)
        try:
            player = services.join_room(room, name, account)
        except services.SeatKicked as exc:
            raise HttpError(403, host.kicked_text(exc.until.timestamp())) from None
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
    return bot_events.room_view(
        kind_of(room.kind), room, room.current_game(), reader_seat(request, room)
    )


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
        message = parse_payload(body.dict(exclude_none=True), commands, moves_door=True)
        if isinstance(message, Hover):
            raise BadMessage(f"Unknown action 'hover': {actions_help(commands, moves_door=True)}.")
        if isinstance(message, Command) and message.name in ("hint", "sync"):
            raise BadMessage(
                f'"{message.name}" is not a move here: ask for hints with POST '
                "/api/rooms/<code>/hint, read the board with GET /api/rooms/<code>."
            )
        outcome = services.play(room, player, message)
        if outcome.replaced is not None:  # as on the socket: no second new game
            raise Refused(
                f"Game {outcome.replaced} was replaced already: game {outcome.game.number} is "
                "the room's current game."
            )
    except (BadMessage, Invalid) as exc:
        raise HttpError(400, str(exc)) from None
    except (services.Forbidden, HostOnly) as exc:
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
    response={200: Revoked, 400: Error, 401: Error, 403: Error, 404: Error, 415: Error},
    summary="Revoke a seat's token (host only)",
)
def revoke(request: HttpRequest, code: str, seat: int) -> dict[str, Any]:
    """The room's host gives seat `seat` a new token: the old one gets 403 from now on and the
    seat's open websockets close with 4403. Tokens never expire otherwise. The answer carries
    the new token; nobody else learns it. 403 for anyone but the host; 400 for the host's own
    seat or a seat the room does not have."""
    no_foreign_body(request)
    room = find_room(code)
    host = player_of(request, room)
    try:
        player = services.revoke_token(room, host, seat)
    except Invalid as exc:
        raise HttpError(400, str(exc)) from None
    except services.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return {"seat": player.number, "name": player.nickname, "player_token": player.token}


@api.delete(
    "/rooms/{code}",
    auth=PlayerToken(),
    response={204: None, 401: Error, 403: Error, 404: Error},
    summary="Delete a room (host only)",
)
def delete_room(request: HttpRequest, code: str) -> Status:
    """The room's host deletes it, with its games and their replays: its code answers 404 from
    then on, and every open socket in it (pages and bots) hears "The host closed this room."
    and closes with 4404. 403 for anyone but the host."""
    room = find_room(code)
    host = player_of(request, room)
    try:
        services.delete_room(room, host)
    except services.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return Status(204, None)


class HostDone(Schema):
    action: str
    notice: str = Field(description="What every screen of the room is told.")
    host: int | None = Field(description="The seat that hosts the room now.")


HOST_EXAMPLES = [
    {"action": "kick", "seat": 2},
    {"action": "kick", "spectator": "0123456789ab"},
    {"action": "lock"},
    {"action": "unlock"},
    {"action": "cap", "players": 8},
    {"action": "visibility", "public": False},
    {"action": "mute", "seat": 2},
    {"action": "mute", "spectators": True},
    {"action": "unmute", "spectator": "0123456789ab"},
    {"action": "transfer", "seat": 2},
    {"action": "spectator_count", "shown": False},
]


@api.post(
    "/rooms/{code}/host",
    auth=PlayerToken(),
    response={200: HostDone, **dict.fromkeys((400, 401, 403, 404, 409, 415, 429), Error)},
    summary="Host controls (host only)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["action"],
                        "properties": {
                            "action": {"enum": list(HOST_ACTIONS)},
                            "seat": {"type": "integer"},
                            "spectator": {"type": "string", "minLength": 12, "maxLength": 12},
                            "spectators": {"const": True},
                            "players": {"type": "integer", "minimum": 2, "maximum": 50},
                            "public": {"type": "boolean"},
                            "shown": {"type": "boolean"},
                        },
                    },
                    "examples": {
                        str(i): {"value": example} for i, example in enumerate(HOST_EXAMPLES)
                    },
                }
            },
        }
    },
)
def host_controls(request: HttpRequest, code: str, body: Body[dict[str, Any]]) -> dict[str, Any]:
    """The room's host, with the same bodies as the room websocket: `kick` a seat (or a
    spectator by the handle their chat lines carry; out for 10 minutes: the seat's token gets
    403, its sockets close with 4403, its seat and moves stay), `lock`/`unlock` (no new
    players; 409 to a join), `cap` the players (2 to 50; default 8; 409 past it; not in a
    two-seat game), `visibility` (`public` false leaves the live list), `mute`/`unmute` a seat,
    a spectator or all spectators, `transfer` the host seat, show or hide the
    `spectator_count`. Every screen is told; bots get a `host` event. 403 for anyone but the
    host, 400 for a body or a seat that cannot be, 409 for what the room refuses now; 429 (with
    `Retry-After`) past the seat's move budget, which host commands share with its moves, as
    they share its socket's message budget: each one tells every screen in the room."""
    room = find_room(code)
    player = player_of(request, room)
    budget = move_budget(player.pk, client_address(request), time.monotonic())
    if not budget.allowed:
        raise RateLimited(TOO_FAST, budget)
    try:
        command = host_command(body)
        notice = host.apply(room, player, command)
    except (BadMessage, Invalid) as exc:
        raise HttpError(400, str(exc)) from None
    except services.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    except Refused as exc:
        raise HttpError(409, str(exc)) from None
    seat = Room.objects.filter(pk=room.pk).values_list("host__number", flat=True).get()
    return {"action": command.action, "notice": notice, "host": seat}


def reader_seat(request: HttpRequest, room: Room) -> int | None:
    """The seat of the player whose token a read carries (marked present, as a move marks it),
    else None: reading needs no token, so a missing or unknown one only leaves out what is the
    seat's own."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    player = services.find_player(room, token.strip()) if scheme.lower() == "bearer" else None
    if player is None:
        return None
    host.seen_on_api(player)
    return player.number


def player_of(request: HttpRequest, room: Room) -> Player:
    """The seat whose token the request carries, marked present (`host.seen_on_api`): 403 for
    another token, or a seat the host kicked (until its time is up)."""
    player = services.find_player(room, request.auth)
    if player is None:
        raise HttpError(403, "That token is not a player in this room.")
    kicked = host.seat_kicked(player)
    if kicked is not None:
        raise HttpError(403, kicked)
    host.seen_on_api(player)  # a seat that calls is present: the host away rule counts it
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
    status: GameStatus
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
        refused = too_many_builds(request, time.time())
        if refused is not None:
            raise RateLimited(*refused)
    view = history.game_view(room, game)
    moves, more = history.page_of(view["moves"], after, limit)
    link = None
    if more:
        link = f"{request.path}?after={moves[-1]['seq']}" + (
            f"&limit={limit}" if limit != history.MOVES_PER_PAGE else ""
        )
    return view | {"moves": moves, "next": link}


class ChatIn(Schema):
    model_config = STRICT
    text: str = Field(description="1 to 200 characters after trimming; no control characters.")


class ChatLineOut(Schema):
    author: str
    channel: Literal["players", "spectators"]
    text: str
    at: str = Field(description="When it was said, ISO 8601.")


class ChatOut(Schema):
    messages: list[ChatLineOut]


@api.post(
    "/rooms/{code}/chat",
    auth=PlayerToken(),
    response={201: ChatLineOut, **dict.fromkeys((400, 401, 403, 404, 415, 429), Error)},
    summary="Say something in the room's chat",
)
def say(request: HttpRequest, code: str, body: ChatIn) -> Status:
    """A line in the players' channel (a racer's out of a race others still run: the spectators',
    which no racer still racing hears), as the seat's name; every screen of the room shows it and
    bots get a `chat` event. 400 for an empty, over-long or control-character line, 403 for a
    muted seat, 429 past a seat's 5 lines in 10 s (or its address's 20, the room's 30)."""
    room = find_room(code)
    player = player_of(request, room)
    try:
        line = chat.say(
            room, player, body.text, address=client_address(request), sender=("seat", player.pk)
        )
    except Invalid as exc:
        raise HttpError(400, str(exc)) from None
    except chat.Muted as exc:
        raise HttpError(403, str(exc)) from None
    except chat.TooFast as exc:
        raise RateLimited(str(exc), exc.decision) from None
    return Status(201, chat_view.as_json(line))


@api.get("/rooms/{code}/chat", response={200: ChatOut, 404: Error}, summary="Read the room's chat")
def read_chat(request: HttpRequest, code: str) -> dict[str, Any]:
    """The last 50 lines, oldest first: the players' channel, and the spectators' too unless a
    race is under way (racers must not be coached)."""
    room = find_room(code)
    lines = chat_view.visible(room, player=True)
    return {"messages": [chat_view.as_json(line) for line in lines]}
