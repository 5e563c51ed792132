"""The daily board's pages: today's (play, your attempt and its share text, today's and
yesterday's results, the archive) and a past day's; the button that deals a copy for a browser.
The API's doors are in `api.daily`; both deal through `games.rooms.daily`."""

import secrets
import time
from contextlib import AbstractContextManager
from datetime import date
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from ..engine import minesweeper as engine
from ..engine.stats import seconds
from ..limits import Reservation
from ..rooms import daily, nicknames
from ..store.models import DailyResult
from .room_limit import client_address, per_minute
from .views import account_of, not_found, remember_seat, too_many

BROWSER_KEY = "daily_browser"
"""The session's key for the browser's random daily key: a guest's person. Not the session's
own key, which changes with every seat taken (`remember_seat` cycles it)."""

TOO_MANY_PLAYS = "Too many daily boards dealt to your address this minute: wait a moment."


def play_reservation(request: HttpRequest, now: float) -> AbstractContextManager[Reservation]:
    """One copy dealt, at most `DAILY_PLAYS_PER_MINUTE` per client address (page and API)."""
    return per_minute("daily-plays", "DAILY_PLAYS_PER_MINUTE").reserve(client_address(request), now)


def person_of(request: HttpRequest, account: Any) -> daily.Person:
    """The account when signed in, else this browser, by a random key its session keeps."""
    if account is not None:
        return daily.Person(account=account)
    key = request.session.get(BROWSER_KEY)
    if not isinstance(key, str) or not key:
        key = secrets.token_urlsafe(16)
        request.session[BROWSER_KEY] = key
    return daily.Person(browser=key)


def share_text(request: HttpRequest, result: DailyResult) -> str:
    """What a player pastes to others: the day, won or not, the time and 3BV/s. No spoilers:
    nothing of where the mines are."""
    outcome = "cleared" if result.won else "lost"
    time_s = seconds(result.time_ms)
    rate = "–" if result.three_bv_per_s is None else f"{result.three_bv_per_s:.2f}"
    url = request.build_absolute_uri(reverse("daily"))
    return (
        f"Minesweeper Live daily {result.date.isoformat()}: {outcome} in {time_s:.2f} s, "
        f"3BV/s {rate} {url}"
    )


def rows(day: date) -> list[dict[str, Any]]:
    return [
        {
            "name": result.name,
            "won": result.won,
            "time_s": seconds(result.time_ms),
            "three_bv_per_s": result.three_bv_per_s,
        }
        for result in daily.results(day)
    ]


def day_context(day: date) -> dict[str, Any]:
    leader = daily.leader_replay(day)
    return {
        "day": day,
        "results": rows(day),
        "leader_url": None if leader is None else reverse("replay", args=leader),
    }


@require_safe
def today(request: HttpRequest) -> HttpResponse:
    return render(request, "games/daily.html", today_context(request))


def today_context(request: HttpRequest, error: str | None = None) -> dict[str, Any]:
    """Today's board and results, the person's attempt (its share text once it ended),
    yesterday's results with its leader's replay, and the archive."""
    day = daily.today()
    size = daily.board()
    mine = daily.attempt(day, person_of(request, account_of(request)))
    ended = mine is not None and mine.ended_at is not None
    return {
        "day": day,
        "today_table": day_context(day),
        "title": engine.board_title(size["width"], size["height"], size["mines"]),
        "board": size,
        "attempt": mine,
        "share": share_text(request, mine) if mine is not None and ended else None,
        "attempt_time_s": None if mine is None else seconds(mine.time_ms),
        "yesterday": day_context(daily.yesterday()),
        "archive": daily.archive(),
        "nickname": request.session.get("nickname", ""),
        "error": error,
    }


@require_safe
def past_day(request: HttpRequest, day: str) -> HttpResponse:
    """A past day's results and its leader's replay; today's is /daily/, a day to come none."""
    try:
        when = daily.parse_day(day)
    except daily.DayError:
        return not_found(request)
    if when == daily.today():
        return redirect("daily")
    return render(
        request, "games/daily.html", {"day": when, "day_table": day_context(when), "past": True}
    )


@require_POST
def play(request: HttpRequest) -> HttpResponse:
    """Today's board on a copy of this person's own, then its room (the API's
    `POST /api/daily/play` for a browser)."""
    account = account_of(request)
    name = request.POST.get("nickname", "").strip() or None
    with play_reservation(request, time.time()) as reservation:
        if not reservation.decision.allowed:
            page = render(request, "games/daily.html", today_context(request, TOO_MANY_PLAYS))
            return too_many(page, reservation.decision)
        try:
            copy = daily.deal(person_of(request, account), name)
        except nicknames.NicknameError as error:
            context = today_context(request, f"Your nickname: {error}")
            return render(request, "games/daily.html", context, status=400)
        reservation.keep()
    remember_seat(request, copy.room, copy.player, name or copy.player.nickname)
    return redirect("room", code=copy.room.code)
