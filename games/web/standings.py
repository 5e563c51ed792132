"""Ratings as people read them: an account's per kind (the profile and `GET
/api/players/<username>`), with a short history drawn as a sparkline, and the leaderboard.
Each read is bounded: one query for an account's ratings, one for its history (the newest
`HISTORY_READ` changes), one per rated kind for the leaderboard and two for its bots, all on indexes
(`Rating.rating_leaderboard`, `RatingChange.rating_history`). Written by `games.rooms.ratings`."""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..kinds import KINDS
from ..kinds.table import GameKind
from ..players.models import Profile
from ..rooms import ratings
from ..store.models import Rating, RatingChange

LEADERS = 50
HISTORY_SHOWN = 30
"""Rated games a profile's sparkline shows per kind (the newest)."""
HISTORY_READ = 300
"""Rating changes read for a profile, all kinds together: a bound on the query."""
WIDTH, HEIGHT = 120, 28
"""The sparkline's drawing box (CSS scales it)."""


def rated_kinds() -> list[GameKind]:
    """The kinds that offer rated rooms (`GameKind.rules.standings`), in the registry's order."""
    return [kind for kind in KINDS.values() if kind.rules.standings is not None]


def figures(rating: Rating) -> dict[str, Any]:
    """A rating as the API gives it (docs/api.md, "Ratings")."""
    return {
        "rating": rating.rating,
        "deviation": ratings.deviation(rating.sigma),
        "games": rating.games,
        "provisional": ratings.provisional(rating.games),
    }


def ratings_of(user: User) -> dict[str, dict[str, Any]]:
    """The account's rating per kind it has played rated: one query."""
    return {rating.kind: figures(rating) for rating in Rating.objects.filter(account=user)}


@dataclass(frozen=True, slots=True)
class KindRating:
    label: str
    figures: dict[str, Any]
    history: list[int]
    """Shown ratings after each rated game, oldest first (the newest `HISTORY_SHOWN`)."""

    @property
    def points(self) -> str:
        """The sparkline's polyline: the rating before the first game shown, then each after."""
        values = self.history
        if len(values) < 2:
            return ""
        low, high = min(values), max(values)
        span = max(high - low, 1)
        step = WIDTH / (len(values) - 1)
        return " ".join(
            f"{i * step:.1f},{HEIGHT - 2 - (v - low) * (HEIGHT - 4) / span:.1f}"
            for i, v in enumerate(values)
        )

    @property
    def summary(self) -> str:
        if not self.history:
            return "No rated games yet."
        return f"{len(self.history) - 1} rated games: from {self.history[0]} to {self.history[-1]}."


def profile_ratings(user: User) -> list[KindRating]:
    """The account's ratings with their recent history, per rated kind it has played: two
    queries."""
    found = ratings_of(user)
    changes = (
        RatingChange.objects.filter(account=user)
        .order_by("-at", "-id")
        .values_list("kind", "before", "after")[:HISTORY_READ]
    )
    history: dict[str, list[tuple[int, int]]] = {}
    for kind, before, after in changes:
        history.setdefault(kind, []).append((before, after))
    shown = []
    for kind in rated_kinds():
        if kind.name not in found:
            continue
        newest = list(reversed(history.get(kind.name, [])[:HISTORY_SHOWN]))
        values = [newest[0][0], *(after for _, after in newest)] if newest else []
        shown.append(KindRating(kind.label, found[kind.name], values))
    return shown


@dataclass(frozen=True, slots=True)
class Board:
    label: str
    kind: str
    leaders: list[Rating]
    bots: list[Rating]
    """The bot accounts' own list (`games.players.models.Profile.bot`): programs are not
    ranked among people."""


def ranked() -> QuerySet[Rating]:
    """Ratings that count on the leaderboard: not provisional, of active accounts."""
    found = Rating.objects.filter(games__gte=ratings.PROVISIONAL_GAMES, account__is_active=True)
    found = found.select_related("account").only("kind", "rating", "games", "account__username")
    return found.order_by("-rating", "account_id")  # no password hashes built, above


def leaders(kind: str) -> list[Rating]:
    """The top `LEADERS` people in `kind`: one query, down the `rating_leaderboard` index."""
    marked = Profile.objects.filter(bot=True).values("user_id")
    return list(ranked().filter(kind=kind).exclude(account_id__in=marked)[:LEADERS])


def bot_leaders() -> dict[str, list[Rating]]:
    """The top `LEADERS` bot accounts per kind: two queries whatever the number of kinds. Bots
    are few (staff mark them), so their ratings are found from their accounts (the
    `bot_accounts` index, then each account's ratings) instead of by walking every rating of
    a kind to find them."""
    bots = list(Profile.objects.filter(bot=True).values_list("user_id", flat=True))
    found: dict[str, list[Rating]] = {}
    if bots:
        for rating in ranked().filter(account_id__in=bots):
            found.setdefault(rating.kind, []).append(rating)
    return {kind: rows[:LEADERS] for kind, rows in found.items()}


def leaderboards() -> list[Board]:
    """Per rated kind, the people's list and the bots': one query per kind and two for the
    bots."""
    bots = bot_leaders()
    return [
        Board(kind.label, kind.name, leaders(kind.name), bots.get(kind.name, []))
        for kind in rated_kinds()
    ]


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    """The top players per rated kind, at /leaderboard/."""
    return render(request, "players/leaderboard.html", {"boards": leaderboards()})
