"""A profile's figures, read from the seats an account held: the games of those rooms that
ended, won or not (from their summaries, `games.web.history`), the newest with their replays, and
the records among them. Read only when someone opens a profile or asks the API. It lives in
`web` beside the history it reads; the accounts themselves are `games.players`."""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ..kinds import KINDS
from ..players import accounts
from ..store.models import Game, GameSummary, Player
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
    if summary is None or summary.status != Game.Status.WON:
        return False
    if "winner_name" in summary.stats:
        return summary.stats["winner_name"] == nickname
    return nickname in summary.players


def finished_games(user: User) -> tuple[list[PlayedGame], dict[int, str]]:
    """Every game that ended in a room where `user` held a seat, after they sat down, newest
    first."""
    rows = Player.objects.filter(account=user).values_list("room_id", "nickname", "joined_at")
    seats = {room: nickname for room, nickname, _ in rows}
    joined = {room: at for room, _, at in rows}
    games = [
        game
        for game in Game.objects.filter(room_id__in=list(seats))
        .exclude(status=Game.Status.PLAYING)
        .select_related("room")
        .prefetch_related("room__players")
        .order_by("-finished_at", "-pk")
        if game.finished_at is None or game.finished_at >= joined[game.room_id]
    ]
    found = history.summaries(games)
    played = [PlayedGame(game, found.get(game.pk), seats[game.room_id], False) for game in games]
    return [
        PlayedGame(p.game, p.summary, p.nickname, won_by(p.summary, p.nickname)) for p in played
    ], seats


def held_records(seats: dict[int, str]) -> list[Record]:
    """The records tables' entries (`history.records`) won in the account's seats."""
    held = []
    for board in history.records():
        for table in board.tables:
            for place, entry in enumerate(table.entries, start=1):
                nickname = seats.get(entry.game.room_id)
                if nickname is not None and won_by(entry, nickname):
                    held.append(Record(board.title, table.heading, place, entry))
    return held


def profile(user: User) -> Profile:
    games, seats = finished_games(user)
    return Profile(
        user=user,
        played=len(games),
        won=sum(1 for game in games if game.won),
        recent=games[:RECENT_SHOWN],
        records=held_records(seats) if seats else [],
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
