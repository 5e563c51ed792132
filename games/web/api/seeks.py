"""Open seeks: the people waiting on `/play/` or the lobby socket for a stranger, and taking
one (docs/api.md, "Quick match"). Seeking itself is the lobby socket's (`/ws/lobby/`): a seek
lives as long as the socket that waits for its `matched`."""

import time

from django.http import HttpRequest
from ninja import Body, Field, Schema, Status
from ninja.errors import HttpError

from ...kinds.seekable import api_descriptions
from ...rooms import lobby
from ..daily import person_of
from ..room_limit import client_address, room_reservation
from .accounts import account_of
from .base import (
    STRICT_CLOSED,
    TOO_MANY_ROOMS,
    Error,
    RateLimited,
    api,
    no_foreign_body,
    optional_name,
)

DESCRIBED = api_descriptions()
"""The seekable kinds' words for the fields that differ by kind (`GameKind.seeking`)."""


class SeekOut(Schema):
    id: int
    game: str = Field(description=DESCRIBED["game"])
    mode: str | None = Field(description=DESCRIBED["mode"])
    preset: str | None = Field(description=DESCRIBED["preset"])
    players: int = Field(description=DESCRIBED["players"])
    rated: bool
    name: str = Field(description="The seeker's name.")
    rating: int | None = Field(description="The seeker's rating for the game when signed in.")


class Seeks(Schema):
    seeks: list[SeekOut]


class AcceptIn(Schema):
    model_config = STRICT_CLOSED
    name: str | None = optional_name(
        'Your name in the room ("Guest" without one); not used with an account\'s '
        "personal token, whose username is the name."
    )


class Accepted(Schema):
    room: str = Field(description="The room's code.")
    url: str
    player_token: str


@api.get("/seeks", response=Seeks, summary="Open seeks")
def list_seeks(request: HttpRequest) -> dict[str, object]:
    """The seeks waiting for a stranger, oldest first (at most 50). A seek ends when its seeker
    cancels, its socket closes, someone takes it, or after 10 minutes."""
    return {"seeks": lobby.open_seeks()}


@api.post(
    "/seeks/{seek_id}/accept",
    response={
        201: Accepted,
        400: Error,
        401: Error,
        403: Error,
        404: Error,
        409: Error,
        429: Error,
    },
    summary="Take an open seek",
)
def accept_seek(request: HttpRequest, seek_id: int, body: Body[AcceptIn | None] = None) -> Status:
    """Play the seeker now: a room with them (a race for more: with the others waiting for
    that race too, oldest first) and you, whose seat's token this answers; the seeker's socket
    gets `matched`. 404 for a seek that is gone, 409 for your own (you are your account's
    personal token, a signed-in session, else your session's browser), 403 for a rated seek
    without an account. It makes a room: within the 10 rooms a minute of an address (429)."""
    no_foreign_body(request)
    account = account_of(request)
    if account is None and request.user.is_authenticated:
        account = request.user
    person = person_of(request, account)
    seeker = lobby.Seeker(
        address=client_address(request),
        account=account,
        browser=person.browser,
        name=(body.name if body else None) or request.session.get("nickname"),
    )
    with room_reservation(request, time.time()) as reservation:
        if not reservation.decision.allowed:
            raise RateLimited(TOO_MANY_ROOMS, reservation.decision)
        try:
            seat = lobby.accept(seek_id, seeker)
        except lobby.SeekGone as exc:
            raise HttpError(404, str(exc)) from None
        except lobby.OwnSeek as exc:
            raise HttpError(409, str(exc)) from None
        except lobby.SignInFirst as exc:
            raise HttpError(403, str(exc)) from None
        except lobby.SeekError as exc:
            raise HttpError(400, str(exc)) from None
        reservation.keep()
    url = request.build_absolute_uri(seat.url)
    return Status(201, {"room": seat.code, "url": url, "player_token": seat.token})
