"""The daily board: today's size, a copy of today's board dealt, a past or present day's results
(docs/api.md, "The daily board"). No door takes a day to come: its board does not exist yet."""

import time

from django.http import HttpRequest
from ninja import Body, Field, Schema, Status
from ninja.errors import HttpError

from ...rooms import daily, nicknames
from .. import daily as pages
from .accounts import account_of
from .base import STRICT_CLOSED, Error, RateLimited, api, no_foreign_body, optional_name


class DailyBoard(Schema):
    date: str = Field(description="Today, YYYY-MM-DD (days change at midnight UTC).")
    width: int
    height: int
    mines: int
    no_guess: bool


class DailyPlay(Schema):
    model_config = STRICT_CLOSED
    name: str | None = optional_name(
        'Your name on the results ("Guest" without one); not used with an '
        "account's personal token, whose username is the name."
    )


class DailyCopy(Schema):
    code: str
    url: str
    player_token: str
    counted: bool = Field(description="Whether this copy is your attempt of the day (the first).")


class DailyRow(Schema):
    name: str
    time_ms: int | None
    won: bool
    three_bv_per_s: float | None


class DailyResults(Schema):
    date: str
    results: list[DailyRow]


@api.get("/daily", response=DailyBoard, summary="Today's daily board")
def daily_board(request: HttpRequest) -> dict[str, object]:
    """Today's date and board size; the layout is dealt only on a copy (`POST /api/daily/play`)."""
    return {"date": daily.today().isoformat(), **daily.board()}


@api.post(
    "/daily/play",
    response={201: DailyCopy, 400: Error, 401: Error, 415: Error, 429: Error},
    summary="Play today's board",
)
def daily_play(request: HttpRequest, body: Body[DailyPlay | None] = None) -> Status:
    """A copy of today's board of your own: a private room with one seat (yours) and the day's
    opening already revealed, so the clock runs. Your first copy of the day is your attempt
    (`counted`); later ones play the same board and are recorded nowhere. You are your account
    (a personal token, `Authorization: Bearer`), else your session (keep its cookie). At most
    `DAILY_PLAYS_PER_MINUTE` (10) copies a minute per client address (429)."""
    no_foreign_body(request)
    account = account_of(request)
    if account is None and request.user.is_authenticated:
        account = request.user  # a signed-in browser's script
    with pages.play_reservation(request, time.time()) as reservation:
        if not reservation.decision.allowed:
            raise RateLimited(pages.TOO_MANY_PLAYS, reservation.decision)
        try:
            copy = daily.deal(pages.person_of(request, account), body.name if body else None)
        except nicknames.NicknameError as exc:
            raise HttpError(400, f"name: {exc}") from None
        reservation.keep()
    url = request.build_absolute_uri(f"/r/{copy.room.code}/")
    return Status(
        201,
        {
            "code": copy.room.code,
            "url": url,
            "player_token": copy.player.token,
            "counted": copy.counted,
        },
    )


@api.get(
    "/daily/{day}/results",
    response={200: DailyResults, 404: Error},
    summary="A day's daily results",
)
def daily_results(request: HttpRequest, day: str) -> dict[str, object]:
    """The day's ended attempts made without help (hints, the Solver bot, a second player):
    won ones fastest first, then lost ones by their 3BV/s. 404 for a day that has not begun and
    for a text that is no day (its error names the form): no such results exist, and any text
    is a valid path here, so a 400 would refuse what the schema allows."""
    try:
        when = daily.parse_day(day)
    except daily.DayError as exc:  # NotYet among them
        raise HttpError(404, str(exc)) from None
    rows = [
        {
            "name": result.name,
            "time_ms": result.time_ms,
            "won": bool(result.won),
            "three_bv_per_s": result.three_bv_per_s,
        }
        for result in daily.results(when)
    ]
    return {"date": when.isoformat(), "results": rows}
