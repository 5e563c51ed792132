"""A profile's figures, read from the seats an account held: the games of those rooms that
ended, won or not (from their summaries, `games.web.history`), the newest with their replays, and
the records among them. Read only when someone opens a profile or asks the API. It lives in
`web` beside the history it reads; the accounts themselves are `games.players`."""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.db.models.fields.json import KeyTextTransform
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..kinds import KINDS
from ..players import accounts
from ..store.models import Game, GameSummary, Player, Room
from . import history, standings

RECENT_SHOWN = 20


@dataclass(frozen=True, slots=True)
class PlayedGame:
    game: Game
    summary: GameSummary | None
    nickname: str
    won: bool

    @property
    def kind_label(self) -> str:
        kind = KINDS.get(self.game.room.kind)
        return self.game.room.kind if kind is None else kind.label

    @property
    def replay_url(self) -> str:
        return f"/r/{self.game.room.code}/games/{self.game.number}/"


@dataclass(frozen=True, slots=True)
class Record:
    board: str
    heading: str
    place: int
    entry: GameSummary


@dataclass(frozen=True, slots=True)
class Profile:
    user: User
    played: int
    won: int
    recent: list[PlayedGame]
    records: list[Record]


def won_by(summary: GameSummary | None, nickname: str) -> bool:
    """Whether the seat called `nickname` won: the named winner of a race, Flags or
    tic-tac-toe game, or one of the team of a co-op game won."""
    if summary is None:
        return False
    return won(summary.status, summary.stats.get("winner_name"), summary.players, nickname)


def won(status: str | None, winner: str | None, players: list[str] | None, nickname: str) -> bool:
    """`won_by` on a summary's plain values (`winner`: its `stats["winner_name"]`, None for a
    co-op game, whose team is `players`)."""
    if status != Game.Status.WON:
        return False
    return winner == nickname if winner is not None else nickname in (players or [])


def seats_of(user: User) -> dict[int, tuple[str, datetime]]:
    """The rooms where `user` held a seat: the seat's nickname and when they sat down."""
    rows = Player.objects.filter(account=user).values_list("room_id", "nickname", "joined_at")
    return {room: (nickname, joined) for room, nickname, joined in rows}


def ended_games(seats: Mapping[int, tuple[str, datetime]]) -> QuerySet[Game]:
    """Unordered: `Game`'s own order (by room) would join every row's room to sort by it."""
    found = Game.objects.filter(room_id__in=list(seats)).exclude(status=Game.Status.PLAYING)
    return found.order_by()


def counted(
    seats: Mapping[int, tuple[str, datetime]], room: int, finished: datetime | None
) -> bool:
    """Whether a game that ended in `room` is one of the seat's: it ended after they sat down."""
    return finished is None or finished >= seats[room][1]


SUMMARIES_PER_QUERY = 1000
"""Summaries read per query by `tally`: by primary key, a bounded `IN` list."""


def tally(seats: Mapping[int, tuple[str, datetime]]) -> tuple[int, int]:
    """Games played and won in the account's seats, from plain values, not models (a player
    with a thousand games is read in a few ms): the games, then the won ones' summaries by
    their keys (joined in one query, PostgreSQL hashed every summary there is), the winner's
    name read as text by the database. The newest games' summaries are worked out first by
    the profile page (`history.summaries`); an older game not yet summarised counts as not won."""
    games = {
        pk: room
        for pk, room, finished in ended_games(seats).values_list("pk", "room_id", "finished_at")
        if counted(seats, room, finished)
    }
    ids, wins = list(games), 0
    for start in range(0, len(ids), SUMMARIES_PER_QUERY):
        rows = GameSummary.objects.filter(
            game_id__in=ids[start : start + SUMMARIES_PER_QUERY], status=Game.Status.WON
        ).values_list("game_id", KeyTextTransform("winner_name", "stats"), "players")
        wins += sum(won("won", winner, team, seats[games[pk]][0]) for pk, winner, team in rows)
    return len(games), wins


def recent_games(seats: Mapping[int, tuple[str, datetime]]) -> list[PlayedGame]:
    """The newest `RECENT_SHOWN` games that ended in the account's seats, with their summaries:
    a bounded read however many games the account has played."""
    # A few more read than shown: a game that ended before the seat sat down is skipped. The
    # state (large for a race) is read only for a game whose summary is still to work out.
    newest = (
        ended_games(seats)
        .select_related("room")
        .defer("state")
        .prefetch_related("room__players")
        .order_by("-finished_at", "-pk")
    )
    games = [
        game
        for game in newest[: RECENT_SHOWN + 10]
        if counted(seats, game.room_id, game.finished_at)
    ][:RECENT_SHOWN]
    found = history.summaries(games)
    return [
        PlayedGame(game, found.get(game.pk), nickname, won_by(found.get(game.pk), nickname))
        for game in games
        for nickname in [seats[game.room_id][0]]
    ]


def held_records(seats: Mapping[int, tuple[str, datetime]]) -> list[Record]:
    """The records tables' entries (`history.records`) won in the account's seats."""
    held = []
    for board in history.records():
        for table in board.tables:
            for place, entry in enumerate(table.entries, start=1):
                seat = seats.get(entry.game.room_id)
                if seat is not None and won_by(entry, seat[0]):
                    held.append(Record(board.title, table.heading, place, entry))
    return held


def record_kinds_played(seats: Mapping[int, tuple[str, datetime]]) -> bool:
    """Whether any of the account's seats is in a room of a kind that has records: if none is,
    the records tables (read across every game) cannot hold theirs, and are not read."""
    kinds = [name for name, kind in KINDS.items() if kind.replays and kind.replays.records]
    return Room.objects.filter(pk__in=list(seats), kind__in=kinds).exists()


def profile(user: User) -> Profile:
    seats = seats_of(user)
    recent = recent_games(seats)  # first: it works out the newest games' summaries
    played, won = tally(seats)
    return Profile(
        user=user,
        played=played,
        won=won,
        recent=recent,
        records=held_records(seats) if record_kinds_played(seats) else [],
    )


@require_safe
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's public page, at /@/<username>/."""
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        return render(request, "games/404.html", status=404)
    context = {
        "profile": profile(user),
        "ratings": standings.profile_ratings(user),
        "bot": accounts.is_bot(user),
    }
    return render(request, "players/profile.html", context)
