"""Ratings of rated rooms (docs/contracts.md, "Players and ratings"): when a rated game ends,
its players' ratings move, in the transaction that writes the end, once.

The numbers come from openskill's Weng–Lin Plackett–Luce model, not from code of our own: a
race of 2 to 8 is one ranking (each racer a team of one, ranked by the kind's `standings`), a
two-sided game a ranking of two (a draw is a shared rank). openskill keeps `mu` (25 for a
newcomer) and `sigma` (25/3); people are shown `SCALE` times those, centred on 1500, so a
newcomer shows 1500 ± 500 (the factor 60 is 1500/25: the library's own default, scaled to
read like the Elo-style numbers players know).

Exactly once: `settle` runs with the game's row locked and writes nothing when the game has
rating changes already; `RatingChange` is unique per (game, account), so even a second
process that got past the check is refused by the database, and its savepoint leaves the
game's end itself untouched.
"""

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from ..kinds import kind_of
from ..store.models import Game, Player, Rating, RatingChange, Room

CENTRE = 1500
SCALE = 1500 / 25
"""Shown rating = CENTRE + (mu − 25) × SCALE; shown deviation = sigma × SCALE."""
PROVISIONAL_GAMES = 5
"""A rating is provisional ("?") until this many rated games: left off the leaderboard."""

MODEL = PlackettLuce()


def shown(mu: float) -> int:
    """The rating people see for openskill's `mu`."""
    return round(CENTRE + (mu - MODEL.mu) * SCALE)


def deviation(sigma: float) -> int:
    return round(sigma * SCALE)


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def is_rated(settings: Mapping[str, Any]) -> bool:
    return bool(settings.get("rated"))


def settle(game: Game) -> list[dict[str, Any]]:
    """Rate `game` if it is a rated game that ended and was not rated yet: each player's
    `Rating` moved and a `RatingChange` written; what changed as the contract's
    `rating_changes` (by rank). Call it inside the transaction that ends the game; [] when
    there is nothing to rate (not rated, not over, fewer than two accounts, rated already)."""
    kind_name, settings = Room.objects.filter(pk=game.room_id).values_list("kind", "settings").get()
    standings = kind_of(kind_name).rules.standings
    if not is_rated(settings) or standings is None:
        return []
    with transaction.atomic():
        locked = Game.objects.select_for_update().filter(pk=game.pk)
        state, params = locked.values_list("state", "params").get()
        ranks = standings(state, params)
        if not ranks or RatingChange.objects.filter(game_id=game.pk).exists():
            return []
        try:
            with transaction.atomic():  # a savepoint: refused by the database, nothing rated
                return _rate(game, kind_name, ranks)
        except IntegrityError:
            return []


def _rate(game: Game, kind: str, ranks: Mapping[int, int]) -> list[dict[str, Any]]:
    """The ratings of the seats in `ranks` moved by one result (see the module's docstring)."""
    seats = Player.objects.filter(
        room_id=game.room_id, number__in=list(ranks), account__isnull=False
    ).select_related("account")
    accounts = {seat.number: seat.account for seat in seats if seat.account is not None}
    if len(accounts) < 2:
        return []
    ratings = _locked_ratings(kind, [account.pk for account in accounts.values()])
    order = sorted(accounts, key=lambda seat: (ranks[seat], seat))
    teams = [
        [MODEL.create_rating([ratings[accounts[s].pk].mu, ratings[accounts[s].pk].sigma])]
        for s in order
    ]
    rated = MODEL.rate(teams, ranks=[ranks[s] for s in order])
    changes, rows, now = [], [], timezone.now()
    for seat, (new,) in zip(order, rated, strict=True):
        account, rating = accounts[seat], ratings[accounts[seat].pk]
        before = rating.rating
        rating.mu, rating.sigma, rating.rating = new.mu, new.sigma, shown(new.mu)
        rating.games, rating.updated_at = rating.games + 1, now  # bulk_update skips auto_now
        rows.append(
            RatingChange(
                game_id=game.pk,
                account=account,
                kind=kind,
                username=account.username,
                before=before,
                after=rating.rating,
            )
        )
        changes.append({"username": account.username, "before": before, "after": rating.rating})
    RatingChange.objects.bulk_create(rows)
    Rating.objects.bulk_update(ratings.values(), ["mu", "sigma", "rating", "games", "updated_at"])
    return changes


def _locked_ratings(kind: str, accounts: list[int]) -> dict[int, Rating]:
    """Each account's rating in `kind` (a newcomer's made), locked in the order of their
    keys so that two games ending at once that share players wait instead of deadlocking."""
    fresh = [
        Rating(account_id=pk, kind=kind, mu=MODEL.mu, sigma=MODEL.sigma, rating=shown(MODEL.mu))
        for pk in accounts
    ]
    Rating.objects.bulk_create(fresh, ignore_conflicts=True)
    found = Rating.objects.select_for_update().filter(kind=kind, account_id__in=accounts)
    return {rating.account_id: rating for rating in found.order_by("pk")}


def changes_of(game_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """The `rating_changes` of each of these games that has any: one query."""
    found: dict[int, list[dict[str, Any]]] = {}
    rows = RatingChange.objects.filter(game_id__in=game_ids).order_by("game_id", "id")
    for game_id, username, before, after in rows.values_list(
        "game_id", "username", "before", "after"
    ):
        found.setdefault(game_id, []).append(
            {"username": username, "before": before, "after": after}
        )
    return found
