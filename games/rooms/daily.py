"""The daily board: one no-guess board a day, the same layout for everyone, each person playing
alone on a copy of their own (docs/contracts.md, "The daily board").

A day's seed is an HMAC of the date under the server's `SECRET_KEY`: nobody without the key can
work out a layout, and no function here deals a day that has not begun (UTC), so tomorrow's
board cannot be read ahead. A copy is an ordinary private co-op Minesweeper room, locked to its
one seat, whose first game is dealt from the day's seed with the day's opening already played
(a reveal of a start cell drawn from the seed, logged as the first move, as a race's Go opens
one start cell on every board): co-op Minesweeper places its mines at the first click, so
without it two people's first clicks would deal two layouts. The clock runs from that opening.

Only a person's first copy of a day counts: its `DailyResult` row is made with the copy, one per
day and person (the account when signed in, else the browser's key), and filled in when that
game ends (`games.store.daily`, called by the write path). Later copies are dealt and played
like any other, and recorded nowhere.
"""

import hashlib
import hmac
import random
from dataclasses import dataclass
from datetime import UTC, date, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..protocol.messages import CellMove
from ..store.daily import DAILY
from ..store.models import DailyResult, Player, Room
from . import joining, playing

RESULTS_SHOWN = 100
"""Rows of a day's results a page or the API lists: the fastest, which is what a reader wants."""
ARCHIVE_DAYS = 60
"""Past days the archive links to."""
GUEST_NAME = "Guest"


class DayError(ValueError):
    """A date that is malformed (HTTP 400) or not yet begun (`NotYet`, HTTP 404)."""


class NotYet(DayError):
    """A day after today: its board does not exist yet, so nothing about it is told."""


def today() -> date:
    """Days change at midnight UTC, for everyone at once."""
    return timezone.now().astimezone(UTC).date()


def parse_day(text: str) -> date:
    """`text` as a day that has begun: `DayError` naming the expected form, `NotYet` after
    today."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise DayError(f"date: {text!r} is not a date; send YYYY-MM-DD.") from None
    if len(text) != 10:
        raise DayError(f"date: {text!r} is not a date; send YYYY-MM-DD.")
    if day > today():
        raise NotYet(f"{day.isoformat()} has not begun: a day's board is dealt on that day (UTC).")
    return day


def board() -> dict[str, Any]:
    """The board every day deals (`settings.DAILY_BOARD`), as a room's settings."""
    width, height, mines = settings.DAILY_BOARD
    return {"width": width, "height": height, "mines": mines, "no_guess": True}


def seed_for(day: date) -> int:
    """The day's seed: HMAC-SHA256 of the date under `SECRET_KEY`, cut to the 62 bits games'
    seeds have. Refuses a day after today, so no caller can deal tomorrow's board."""
    if day > today():
        raise NotYet(f"{day.isoformat()} has not begun.")
    key = settings.SECRET_KEY.encode()
    digest = hmac.new(key, f"daily-board:{day.isoformat()}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def start_cell(day: date) -> tuple[int, int]:
    """The day's opening: a cell away from the edges (a fair-sized opening), drawn from the
    day's seed with its own stream, so it is the same on every copy."""
    rng = random.Random(seed_for(day) ^ 0x5EED)
    width, height = board()["width"], board()["height"]
    return rng.randrange(1, width - 1), rng.randrange(1, height - 1)


@dataclass(frozen=True, slots=True)
class Person:
    """Who plays: a signed-in `account` (a `User`), else a browser by its random `browser` key."""

    account: Any = None
    browser: str = ""

    @property
    def key(self) -> str:
        if self.account is not None:
            return f"account:{self.account.pk}"
        return f"browser:{self.browser}"


@dataclass(frozen=True, slots=True)
class Copy:
    room: Room
    player: Player
    counted: bool
    """Whether this copy is the person's attempt of the day (their first)."""


def deal(person: Person, name: str | None) -> Copy:
    """Today's board on a copy of `person`'s own, under `name` (the account's username when
    signed in), with its opening played; counted when it is their first copy of the day.
    `nicknames.NicknameError` for a name refused."""
    day = today()
    shown = person.account.username if person.account is not None else (name or GUEST_NAME)
    with transaction.atomic():
        room, player = joining.open_room(
            "minesweeper",
            {**board(), DAILY: day.isoformat()},
            shown,
            is_public=False,
            seed=seed_for(day),
            account=person.account,
        )
        assert player is not None  # Minesweeper's creator always sits
        Room.objects.filter(pk=room.pk).update(locked=True)  # one seat: played alone
        x, y = start_cell(day)
        outcome = playing.play_move(room, player, CellMove("reveal", x, y))
        counted = _count(day, person, player, room, outcome.game)
    return Copy(room, player, counted)


def _count(day: date, person: Person, player: Player, room: Room, game: Any) -> bool:
    """The copy made the person's attempt of the day unless they have one: the unique row
    decides when two requests come at once (the second's insert fails in its savepoint)."""
    if DailyResult.objects.filter(date=day, person=person.key).exists():
        return False
    try:
        with transaction.atomic():
            DailyResult.objects.create(
                date=day,
                person=person.key,
                account=person.account,
                browser="" if person.account is not None else person.browser,
                name=player.nickname,
                room=room,
                game=game,
            )
    except IntegrityError:
        return False
    return True


def attempt(day: date, person: Person) -> DailyResult | None:
    """The person's counted attempt of `day`, ended or under way, if any."""
    return DailyResult.objects.filter(date=day, person=person.key).select_related("room").first()


def results(day: date) -> list[DailyResult]:
    """The day's ended attempts without help: won ones fastest first, then lost ones by the
    3BV a second they cleared."""
    ended = DailyResult.objects.filter(
        date=day, ended_at__isnull=False, assisted=False
    ).select_related("room", "game")
    won = list(ended.filter(won=True).order_by("time_ms", "ended_at", "pk")[:RESULTS_SHOWN])
    lost = ended.filter(won=False).order_by("-three_bv_per_s", "time_ms", "pk")
    return won + list(lost[: RESULTS_SHOWN - len(won)])


def archive() -> list[date]:
    """Past days with a result, newest first."""
    days = (
        DailyResult.objects.filter(date__lt=today(), ended_at__isnull=False)
        .values_list("date", flat=True)
        .distinct()
        .order_by("-date")
    )
    return list(days[:ARCHIVE_DAYS])


def leader_replay(day: date) -> tuple[str, int] | None:
    """(room code, game number) of the day's fastest win, once the day is over (a replay
    shows the layout, so not while others may still play it); None before, or without a win."""
    if day >= today():
        return None
    best = next((result for result in results(day) if result.won), None)
    if best is None or best.room is None or best.game is None:
        return None
    return best.room.code, best.game.number


def yesterday() -> date:
    return today() - timedelta(days=1)
