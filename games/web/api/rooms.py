"""Rooms: create, join, read, a seat's token revoked, a seat left, the room deleted, a past game
read."""

import time
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Body, Field, Query, Schema, Status
from ninja.errors import HttpError

from ...broadcast import bot_events
from ...kinds import create_options, kind_of
from ...kinds.table import Invalid, SettingsError
from ...rooms import base, computers, joining, leaving, nicknames
from ...rooms import host as rooms_host
from .. import history
from ..room_limit import (
    join_reservation,
    room_reservation,
    too_many_builds,
)
from .accounts import account_of
from .base import (
    STRICT_CLOSED,
    TOO_MANY_JOINS,
    TOO_MANY_ROOMS,
    Error,
    PlayerToken,
    RateLimited,
    api,
    catch_up,
    find_room,
    no_foreign_body,
    optional_name,
    player_of,
    reader_seat,
)
from .schemas import GameOut, RoomState


class Created(Schema):
    code: str
    url: str
    player_token: str | None


class Join(Schema):
    model_config = STRICT_CLOSED
    name: str | None = optional_name(
        "Your name in the room; not needed (and not used) with an account's "
        "personal token, whose username is the name."
    )


class Joined(Schema):
    player_token: str
    name: str = Field(
        description='The name given: the one asked for, or "Ana 2" when someone in the room '
        "has it already (compared regardless of case)."
    )


@api.post(
    "/rooms",
    response={201: Created, 400: Error, 401: Error, 403: Error, 415: Error, 429: Error},
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
        account = account_of(request)
        name = options.name if account is None else account.username
        creator = name if kind.setup.creator_sits(settings) else None
        try:
            room, player = joining.open_room(
                kind.name,
                settings,
                creator,
                is_public=options.public,
                seed=options.seed,
                account=account,
            )
        except nicknames.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        except joining.SignInToRate as exc:
            raise HttpError(403, f"rated: {exc} (send an account's personal token).") from None
        reservation.keep()
    token = None if player is None else player.token
    computers.play_computer_turns(room)  # a computer holding X opens (two computers play it out)
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
    account = account_of(request)
    name = body.name if account is None else account.username
    if name is None:
        raise HttpError(400, "name: Field required (or send an account's personal token).")
    with join_reservation(request, time.time()) as reservation:  # only seats taken count
        if not reservation.decision.allowed:
            raise RateLimited(TOO_MANY_JOINS, reservation.decision)
        try:
            player = joining.join_room(room, name, account)
        except joining.SeatKicked as exc:
            raise HttpError(403, rooms_host.kicked_text(exc.until.timestamp())) from None
        except nicknames.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        except joining.RoomFull as exc:
            raise HttpError(409, str(exc)) from None
        except joining.SignInToRate as exc:
            raise HttpError(403, f"{exc}: this room is rated (send an account's token).") from None
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
        player = rooms_host.revoke_token(room, host, seat)
    except Invalid as exc:
        raise HttpError(400, str(exc)) from None
    except base.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return {"seat": player.number, "name": player.nickname, "player_token": player.token}


class LeftOut(Schema):
    seat: int = Field(description="The seat that was freed.")
    name: str
    host: int | None = Field(description="The seat that hosts the room now (null: nobody yet).")


@api.post(
    "/rooms/{code}/leave",
    auth=PlayerToken(),
    response={200: LeftOut, 401: Error, 403: Error, 404: Error, 415: Error},
    summary="Leave the room (your seat)",
)
def leave(request: HttpRequest, code: str) -> dict[str, Any]:
    """The token's seat leaves the room for good: the roster drops it and everyone is told; in
    a race under way it gives up, in Flags or tic-tac-toe under way its seat is free at once
    (the other side may claim the win). The token is refused from then on (403), and the
    seat's open websockets close with 4410. A host who leaves hands the room to the player
    present the longest. No body (or `{}`)."""
    no_foreign_body(request)
    room = find_room(code)
    player = player_of(request, room)
    try:
        left = leaving.leave(room, player)
    except base.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return {"seat": left.seat, "name": left.name, "host": left.host}


@api.delete(
    "/rooms/{code}",
    auth=PlayerToken(),
    response={204: None, 401: Error, 403: Error, 404: Error},
    summary="Delete a room (host only)",
)
def delete_room(request: HttpRequest, code: str) -> HttpResponse:
    """The room's host deletes it, with its games and their replays: its code answers 404 from
    then on, and every open socket in it (pages and bots) hears "The host closed this room."
    and closes with 4404. 403 for anyone but the host."""
    room = find_room(code)
    host = player_of(request, room)
    try:
        rooms_host.delete_room(room, host)
    except base.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    return no_content()


def no_content() -> HttpResponse:
    """A 204 without a body, and so without a `Content-Type` (ninja's would say JSON)."""
    response = HttpResponse(status=204)
    del response["Content-Type"]
    return response


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
