"""Rooms, the people in them, their games and the move log each game replays from.

A game's `state` is the engine's JSON form; the move log is the source of truth it can be rebuilt
from (`seed` + moves), and `version` counts the moves so clients can spot a missed message.
"""

import re
import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from ..engine.stats import seconds
from . import rows
from .fields import TextJSONField
from .palette import PALETTE_SIZE

__all__ = [
    "MAX_NICKNAME",
    "ChatMessage",
    "DailyResult",
    "Game",
    "GameSummary",
    "Move",
    "Player",
    "Presence",
    "Rating",
    "RatingChange",
    "Room",
    "Seek",
    "ServerProcess",
    "is_room_code",
    "new_player_token",
    "new_room_code",
]

MAX_NICKNAME = 24


def new_room_code() -> str:
    """Unguessable: 16 random bytes, so a private room is as private as its link."""
    return secrets.token_urlsafe(16)


_ROOM_CODE = re.compile(r"[A-Za-z0-9_-]{1,43}")


def is_room_code(code: str) -> bool:
    """Whether `code` could be a room's (URL-safe base64, as `new_room_code` makes them): what
    cannot be is not looked up at all. PostgreSQL refuses NUL in text, so a code with one would
    fail the query instead of finding no room."""
    return _ROOM_CODE.fullmatch(code) is not None


def room_by_code(code: str) -> "Room | None":
    """The room whose invite code is `code`, for every page, socket and API call that names
    one (`rows.first`: no query compiled per call); None for none, and for text that cannot be
    a code (not looked up)."""
    return rows.first(Room, code=code) if is_room_code(code) else None


def new_player_token() -> str:
    return secrets.token_urlsafe(24)


class Room(models.Model):
    code = models.CharField(max_length=43, unique=True, default=new_room_code, editable=False)
    kind = models.CharField(
        max_length=16,
        default="minesweeper",
        help_text="A name in games.kinds.KINDS, the registry that says what each kind is.",
    )
    settings = models.JSONField(default=dict, help_text="Parameters every new game starts from.")
    is_public = models.BooleanField(default=True)
    host = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hints_used = models.PositiveIntegerField(default=0)
    spectators = models.PositiveIntegerField(
        default=0, help_text="Open spectator sockets, across every server process."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Host controls (`games.rooms.host`): what the host decided about who may join, talk and see.
    locked = models.BooleanField(default=False, help_text="No new players; spectators welcome.")
    player_cap = models.PositiveSmallIntegerField(
        default=8, help_text="Seats that play, at most (2 to 50): joins past it are refused."
    )
    spectators_muted = models.BooleanField(default=False)
    spectator_count_shown = models.BooleanField(default=True)
    kicked = models.JSONField(
        default=dict,
        help_text="Spectators' handles the host kicked, each with when it may come back (epoch "
        "seconds); at most `host.KICKS_KEPT`.",
    )
    muted_spectators = models.JSONField(
        default=list, help_text="Spectators' handles the host muted; at most `host.MUTES_KEPT`."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} room {self.code}"

    def current_game(self) -> "Game":
        """The newest game. Every room has one from its creation; a room deleted meanwhile has
        None, as the ORM's `first()` said (`rows.first`: read on every page and socket)."""
        return rows.first(Game, newest="number", room=self.pk)  # type: ignore[return-value]


class Player(models.Model):
    class Role(models.TextChoices):
        PLAYER = "player", "Player"
        SPECTATOR = "spectator", "Spectator"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="players")
    number = models.PositiveIntegerField(help_text="Seat number; the engine's player id.")
    nickname = models.CharField(max_length=MAX_NICKNAME)
    colour = models.PositiveSmallIntegerField(default=0)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    token = models.CharField(max_length=40, unique=True, default=new_player_token, editable=False)
    connections = models.PositiveIntegerField(
        default=0, help_text="Open sockets; the player is online while this is above zero."
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    online_since = models.DateTimeField(
        null=True, blank=True, help_text="When its socket count last rose from zero."
    )
    away_since = models.DateTimeField(
        null=True, blank=True, help_text="When its socket count last fell to zero."
    )
    muted = models.BooleanField(default=False, help_text="The host muted this seat in chat.")
    kicked_until = models.DateTimeField(
        null=True, blank=True, help_text="The host kicked this seat: refused until then."
    )
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
        help_text="A signed-in person's seat (games.players); null for a guest's. Read only "
        "where a page or the roster names it, never on a move's path.",
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="unique_seat_per_room"),
            models.CheckConstraint(condition=Q(colour__lt=PALETTE_SIZE), name="colour_in_palette"),
        ]

    def __str__(self) -> str:
        return f"{self.nickname} in {self.room.code}"

    @property
    def online(self) -> bool:
        return self.connections > 0

    @property
    def is_spectator(self) -> bool:
        return self.role == self.Role.SPECTATOR


class Game(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        WON = "won", "Won"
        LOST = "lost", "Lost"
        DRAW = "draw", "Draw"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()
    params = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    state: Any = TextJSONField()  # a dict once read; mypy sees Django untyped
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["room", "number"]
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="unique_game_number_per_room"),
        ]

    def __str__(self) -> str:
        return f"game {self.number} of {self.room.code} ({self.status})"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.PLAYING

    @property
    def duration_seconds(self) -> int | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return int((self.finished_at - self.started_at).total_seconds())


class Move(models.Model):
    """One accepted move; `seq` equals the game's version right after it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    player = models.ForeignKey(Player, null=True, on_delete=models.SET_NULL, related_name="+")
    seat = models.PositiveIntegerField(help_text="The engine's player id, kept if the row goes.")
    action = models.CharField(
        max_length=16
    )  # the longest, "claim_win", "seat_free", "take_seat", is 9
    x = models.IntegerField(null=True, blank=True)
    y = models.IntegerField(null=True, blank=True)
    cell = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq_per_game"),
            models.CheckConstraint(condition=Q(seq__gt=0), name="move_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.action} by seat {self.seat}"


class ServerProcess(models.Model):
    """A server process that counts sockets in `Presence`: alive while it beats (`last_seen`).

    A process killed without a goodbye (`kill -9`, out of memory) stops beating; the first live
    process to notice takes its sockets out of the counts (docs/operations.md, "Presence after
    a crash")."""

    id = models.CharField(primary_key=True, max_length=32)
    last_seen = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"process {self.id} (seen {self.last_seen:%H:%M:%S})"


class Presence(models.Model):
    """One process's part of the presence counts: its open sockets of one player, or of a room's
    spectators (`player` null). The counts themselves stay in `Player.connections` and
    `Room.spectators`, so rosters and the live list read no more than before; these rows say
    what to take back out when a process dies."""

    process = models.CharField(max_length=32, db_index=True)
    """A `ServerProcess` id; no foreign key, so a socket of a process thought dead still counts."""
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, null=True, on_delete=models.CASCADE, related_name="+")
    sockets = models.PositiveIntegerField()
    crowd = models.PositiveIntegerField(
        default=0,
        help_text="A spectators' row: the distinct client addresses (an IPv6 /64 as one) among "
        "its sockets, the crowd the home page's On now ranks rooms by (`live.rosters`).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["process", "player"],
                condition=Q(player__isnull=False),
                name="one_presence_per_process_and_player",
            ),
            models.UniqueConstraint(
                fields=["process", "room"],
                condition=Q(player__isnull=True),
                name="one_spectator_presence_per_process_and_room",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sockets} sockets of process {self.process}"


class GameSummary(models.Model):
    """A finished game's figures, worked out once from its move log (`games.web.history`) so that
    the room's history and the records read rows instead of replaying games. Derived data: it
    can be deleted at any time and comes back the next time someone asks."""

    game = models.OneToOneField(
        Game, primary_key=True, on_delete=models.CASCADE, related_name="summary"
    )
    status = models.CharField(max_length=8)
    kind = models.CharField(max_length=16, blank=True, help_text="The room's kind (Room.kind).")
    board = models.CharField(
        max_length=16, blank=True, help_text="A preset's name for a game on one, else ''."
    )
    no_guess = models.BooleanField(default=False)
    time_ms = models.PositiveIntegerField(null=True)
    three_bv = models.PositiveIntegerField(null=True)
    clicks = models.PositiveIntegerField(default=0)
    players = models.JSONField(default=list, help_text="Nicknames of those who moved, by seat.")
    stats = models.JSONField(default=dict, help_text="Everything the kind's statistics say.")
    finished_at = models.DateTimeField(null=True)
    with_bot = models.BooleanField(
        default=False, help_text="Whether the Solver bot played (records are for people)."
    )

    class Meta:
        indexes = [
            models.Index(
                fields=["kind", "board", "no_guess", "status", "time_ms"], name="records_by_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"summary of {self.game_id}: {self.status}"

    @property
    def bv_per_s(self) -> float | None:
        """3BV ÷ time, the time to 0.01 s as shown: of the 3BV solved when the kind says (a
        lost Minesweeper game is judged on what it cleared), else the board's."""
        three_bv = self.stats.get("solved_three_bv", self.three_bv)
        time_s = seconds(self.time_ms)
        if three_bv is None or not time_s:
            return None
        return three_bv / time_s


class ChatMessage(models.Model):
    """A line of a room's chat (`games.rooms.chat`): the last `chat_view.KEPT` per channel are kept.

    `author` is copied, not read through `player`, so the line keeps its name when the seat
    goes; `game` is the room's game when it was said, for that game's replay."""

    class Channel(models.TextChoices):
        PLAYERS = "players"
        SPECTATORS = "spectators"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, null=True, on_delete=models.SET_NULL, related_name="+")
    player = models.ForeignKey(Player, null=True, on_delete=models.SET_NULL, related_name="+")
    author = models.CharField(max_length=MAX_NICKNAME)
    spectator = models.CharField(
        max_length=16, blank=True, help_text="A spectator's handle (`host.handle`), for the host."
    )
    channel = models.CharField(max_length=10, choices=Channel.choices)
    text = models.CharField(max_length=200)
    at = models.DateTimeField(auto_now_add=True)
    address = models.CharField(
        max_length=16,
        blank=True,
        help_text="A keyed hash of the sender's address (`chat.address_tag`): how many of a "
        "channel's kept lines one address holds.",
    )
    guest = models.BooleanField(
        default=False,
        help_text="Said from a guest's seat (no account): marked apart from signed-in people. "
        "Copied, as `author` is, so the mark stays when the seat goes.",
    )

    class Meta:
        ordering = ["room", "id"]
        indexes = [
            models.Index(fields=["room", "-id"], name="chat_latest_per_room"),
            models.Index(fields=["room", "channel", "-id"], name="chat_latest_per_channel"),
        ]

    def __str__(self) -> str:
        return f"{self.author} ({self.channel}): {self.text[:40]}"


class DailyResult(models.Model):
    """A person's counted attempt at a day's board (`games.rooms.daily`): made when their first
    copy is dealt, its figures filled in when that game ends (`games.store.daily`). One per day
    and person (`person`: the account, else the browser), so two requests at once count one
    copy, and a later copy (played for fun, or to learn the layout) is never recorded."""

    date = models.DateField()
    person = models.CharField(
        max_length=48, help_text='"account:<id>" when signed in, else "browser:<key>".'
    )
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    browser = models.CharField(
        max_length=32, blank=True, help_text="A random key kept in the browser's session."
    )
    name = models.CharField(max_length=MAX_NICKNAME, help_text="The name the results show.")
    room = models.ForeignKey(Room, null=True, on_delete=models.SET_NULL, related_name="+")
    game = models.ForeignKey(Game, null=True, on_delete=models.SET_NULL, related_name="+")
    dealt_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True, help_text="None while under way.")
    won = models.BooleanField(null=True)
    time_ms = models.PositiveIntegerField(null=True)
    three_bv = models.PositiveIntegerField(null=True, help_text="The board's 3BV.")
    three_bv_per_s = models.FloatField(
        null=True, help_text="3BV solved (all of it when won) a second, to 0.01."
    )
    assisted = models.BooleanField(
        default=False,
        help_text="Hints, the Solver bot or a second seat helped: kept, left off the results.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["date", "person"], name="one_daily_result_per_person"),
        ]
        indexes = [models.Index(fields=["date", "won", "time_ms"], name="daily_results_by_date")]

    def __str__(self) -> str:
        return f"{self.name} on {self.date}"


class Rating(models.Model):
    """An account's rating in one rated kind (`games.rooms.ratings`): openskill's `mu` and
    `sigma` as the library keeps them, and `rating`, the number shown (1500-centred), kept
    beside them so the leaderboard orders by an index instead of working it out per row."""

    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=16, help_text="Room.kind: race, flags or tictactoe.")
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField(help_text="Shown: 1500 + (mu − 25) × 60 (ratings.shown).")
    games = models.PositiveIntegerField(default=0, help_text="Rated games played in the kind.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "kind"], name="one_rating_per_kind"),
        ]
        indexes = [models.Index(fields=["kind", "-rating"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.account_id} {self.kind} {self.rating}"


class RatingChange(models.Model):
    """What one rated game did to one account's rating: the profile's history and the game's
    `rating_changes`. Unique per (game, account), so a game's end rated twice (two processes at
    once) writes nothing the second time: the database refuses it, whoever checked first."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    kind = models.CharField(max_length=16)
    username = models.CharField(max_length=150, help_text="Copied: the line keeps its name.")
    before = models.IntegerField()
    after = models.IntegerField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "account"], name="one_change_per_game"),
        ]
        indexes = [
            models.Index(fields=["account", "kind", "-at"], name="rating_history"),
        ]

    def __str__(self) -> str:
        return f"{self.username} {self.before} → {self.after} in game {self.game_id}"


class Seek(models.Model):
    """A person waiting to play a stranger (`games.rooms.lobby`). The queue is this table, so
    every process of a deployment pairs from one queue; a seek is open while `room` is null,
    and matched once its room is made (kept until its socket closes, then deleted)."""

    game = models.CharField(
        max_length=16, help_text='The room\'s kind: "race", "flags" or "tictactoe".'
    )
    preset = models.CharField(max_length=16, blank=True, help_text="A race's board; else empty.")
    players = models.PositiveSmallIntegerField(default=2, help_text="A race's racers, 2 to 8.")
    rated = models.BooleanField(default=False)
    rating = models.FloatField(
        null=True, blank=True, help_text="The seeker's rating for the kind when signed in."
    )
    person = models.CharField(
        max_length=250,
        help_text='"account:<id>", "browser:<key>", or "socket:<channel>" for a bot: one open '
        "seek each.",
    )
    name = models.CharField(max_length=MAX_NICKNAME, help_text="The name the seat will take.")
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    browser = models.CharField(
        max_length=32, blank=True, help_text="A guest's random key kept in the session."
    )
    address = models.CharField(max_length=64, help_text="The client's address (`address_key`).")
    channel = models.CharField(
        max_length=200, null=True, blank=True, help_text="The lobby socket's channel name."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    room = models.ForeignKey(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            # Two sockets of one person seeking at once (two processes) make one open seek.
            models.UniqueConstraint(
                fields=["person"], condition=Q(room__isnull=True), name="one_open_seek_per_person"
            ),
        ]
        indexes = [models.Index(fields=["game", "preset", "players", "rated"], name="seek_queue")]

    def __str__(self) -> str:
        return f"{self.name} seeks {self.game}"
