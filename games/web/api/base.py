"""The API's frame, shared by every resource module: JSON bodies only, errors as `{"error"}` with
their statuses in one place, the bearer token, a room looked up by code, the events schema."""

import json
import time
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer
from pydantic import ConfigDict, Field

from ...kinds import KINDS, create_schema
from ...limits import Decision, headers
from ...rooms import host, joining, playing
from ...store.models import MAX_NICKNAME, Player, Room, room_by_code
from ..events_schema import assembled as assembled_events_schema


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
    """The API, whose create body is every registered kind's options (`GameKind.setup.options`):
    the schema is the kinds', put in when it is asked for, so this module lists no kind's
    fields and a kind added to `KINDS` shows its options at /api/docs."""

    def get_openapi_operation_id(self, operation: Any) -> str:
        """`games_web_api_<view>`, as when the API was one module: clients generated from the
        schema keep their method names whichever module of the package a view lives in."""
        return f"games_web_api_{operation.view_func.__name__}"

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


STRICT_CLOSED = ConfigDict(strict=True, extra="forbid")
"""JSON types as the schema says: `0.0` is not a boolean and `"3"` not a number (bots send JSON);
and a field the body does not take is refused by name (join and chat as create and moves)."""


VISIBLE = r"\S"
"""A text field's pattern where blanks alone are refused: one character that is not a space
(in the schema only: the service refuses a blank with its own sentence)."""


def optional_name(description: str) -> Any:
    """A body's `name`: a person's name where a seat is taken (join, a daily copy, an accepted
    seek), as the nickname rules take it; absent with an account's personal token, whose
    username is the name."""
    return Field(
        None,
        min_length=1,
        max_length=MAX_NICKNAME,
        json_schema_extra={"pattern": VISIBLE},
        description=description,
    )


class Error(Schema):
    error: str


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


EVENTS_SCHEMA = assembled_events_schema(KINDS.values())
"""The websocket's events for bots, as JSON Schema: the OpenAPI document covers HTTP only."""


@api.get("/events.schema.json", include_in_schema=False)
def events_schema(request: HttpRequest) -> HttpResponse:
    """Every event a bot's socket receives (docs/api.md, "Writing a bot")."""
    return HttpResponse(json.dumps(EVENTS_SCHEMA), content_type="application/schema+json")


def find_room(code: str) -> Room:
    room = room_by_code(code)
    if room is None:
        raise HttpError(404, "No room with that code.")
    return room


def catch_up(room: Room) -> None:
    """The room's timed events now due (a race's Go, a penalty's end), before a bot reads or
    moves: the live clock runs only while a socket is in the room, and a bot may only poll."""
    due = playing.clock_due(room)
    if due is not None and due[2] <= time.time():
        playing.tick(room)


def reader_seat(request: HttpRequest, room: Room) -> int | None:
    """The seat of the player whose token a read carries (marked present, as a move marks it),
    else None: reading needs no token, so a missing or unknown one only leaves out what is the
    seat's own."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    player = joining.find_player(room, token.strip()) if scheme.lower() == "bearer" else None
    if player is None:
        return None
    host.seen_on_api(player)
    return player.number


def player_of(request: HttpRequest, room: Room) -> Player:
    """The seat whose token the request carries, marked present (`host.seen_on_api`): 403 for
    another token, or a seat the host kicked (until its time is up)."""
    player = joining.find_player(room, request.auth)
    if player is None:
        raise HttpError(403, "That token is not a player in this room.")
    kicked = host.seat_kicked(player)
    if kicked is not None:
        raise HttpError(403, kicked)
    host.seen_on_api(player)  # a seat that calls is present: the host away rule counts it
    return player
