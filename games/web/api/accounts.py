"""The API's account endpoints for bot authors (docs/api.md, "Accounts"): a personal token for
a username and password, and a player's public figures, mounted on the API here; `account_of`
is how `rooms`' create and join read the token."""

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.http import HttpRequest
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict

from ...players import accounts
from ..profile import seats_of, tally
from ..standings import ratings_of
from .base import api

router = Router(tags=["accounts"])


class TokenIn(Schema):
    model_config = ConfigDict(strict=True, extra="forbid")
    username: str = Field(min_length=1, max_length=150)
    password: str = Field(min_length=1, max_length=4096)


class TokenOut(Schema):
    token: str = Field(
        description="A personal token: send it as `Authorization: Bearer <token>` on "
        "`POST /api/rooms` and `POST /api/rooms/<code>/join` and the seat is your account's. "
        "Shown once; listed (by its first characters) and revocable on /accounts/."
    )
    username: str


class RatingOut(Schema):
    rating: int = Field(
        description="1500 + (mu − 25) × 60 from openskill's Plackett–Luce mu: a newcomer is 1500."
    )
    deviation: int = Field(description="openskill's sigma × 60: 500 for a newcomer, shrinking.")
    games: int = Field(description="Rated games played in the kind.")
    provisional: bool = Field(
        description="Fewer than 5 rated games: shown with a '?' and left off the leaderboard."
    )


class PlayerOut(Schema):
    username: str
    bot: bool = Field(
        description="A bot account (marked by staff): shown as one, rated on its own list."
    )
    games: int = Field(description="Games that ended in rooms where the account held a seat.")
    ratings: dict[str, RatingOut] = Field(
        description="Ratings per rated kind (`race`, `flags`, `tictactoe`) the account has "
        "played rated; a kind not played is absent."
    )


class ErrorOut(Schema):
    error: str


WRONG = "Wrong username or password."


@router.post(
    "/accounts/token",
    response={201: TokenOut, 400: ErrorOut, 401: ErrorOut, 415: ErrorOut, 429: ErrorOut},
    summary="Get a personal token",
)
def token(request: HttpRequest, body: TokenIn) -> Status:
    """A new personal token for the account. A wrong password is a 401 naming the problem;
    failed attempts count per client address and per username (django-axes, as the sign-in
    page): past the limit, 429 with `Retry-After`, even with the right password."""
    user = authenticate(request, username=body.username, password=body.password)
    if user is None:
        raise HttpError(401, WRONG)  # a locked-out request becomes axes' 429 (`lockout`)
    assert isinstance(user, User)
    return Status(201, {"token": accounts.issue_token(user), "username": user.username})


@router.get(
    "/players/{username}", response={200: PlayerOut, 404: ErrorOut}, summary="Read a player"
)
def player(request: HttpRequest, username: str) -> dict[str, Any]:
    """A player's public figures, with a rating per kind they have played rated."""
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        raise HttpError(404, "No player with that username.")
    return {
        "username": user.username,
        "bot": accounts.is_bot(user),
        "games": tally(seats_of(user))[0],
        "ratings": ratings_of(user),
    }


def account_of(request: HttpRequest) -> User | None:
    """The account whose personal token the request carries (`Authorization: Bearer`), None
    without one; 401 for a token that is no account's."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if not given.strip() or scheme.lower() != "bearer":
        return None
    user = accounts.user_for_token(given.strip())
    if user is None:
        raise HttpError(401, "That token is no account's: get one from POST /api/accounts/token.")
    return user


api.add_router("/", router)
