"""Quick match: people who want the same game are paired into a new room (docs/contracts.md,
"Quick match"; issue 37).

The queue is the `Seek` table, so every process of a deployment pairs from one queue. A seek
is made and paired in one transaction: under a lock on the queue of its settings (PostgreSQL's
advisory lock; SQLite serialises writers anyway), it takes the oldest compatible seeks with
`select_for_update(skip_locked=True)` and, when there are enough, opens the room with
`joining.open_room`, seats everyone (guests under their nicknames, accounts under their
usernames), and marks each seek with the room: a seek is matched once, never twice. Without the
queue lock two seekers arriving together would each see no one (the other's row not yet
committed) and both wait for ever.

Only after the commit is anyone told (`broadcast.lobby`): each matched socket its `matched`
with its seat's token, and the lobby the open seeks. A match of a kind that names a start
command (`Seeking.start_command`) starts by itself once everyone matched is connected,
or `START_WAIT` seconds after the match without those who have not come (`start_when_ready`, on
the event loop of the process that paired them).

What differs by kind (the seek's fields, its label, the room a match opens, whether it starts
by itself) is the kind's `seeking` part, read through `games.kinds.seekable`: no kind is named
here.

Rated seeks pair only with rated seeks of the same settings, by rating: two seekers pair when
their ratings differ by no more than the wider of their windows, each `RATING_WINDOW` plus
`RATING_WIDENING` for every `WIDENING_SECONDS` waited.
"""

import asyncio
import contextvars
import time
import zlib
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from channels.db import database_sync_to_async
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ..broadcast import lobby as news
from ..kinds import create_options, kind_of
from ..kinds.seekable import room_body
from ..kinds.table import GameKind, Refused
from ..protocol.messages import Command
from ..protocol.seeks import Wanted
from ..server_loop import server_loop
from ..store.models import Player, Rating, Room, Seek
from . import autoplay, joining, leaving, nicknames, playing, ratings
from .base import Forbidden

SEEK_LIFETIME = timedelta(minutes=10)
"""A seek nobody took in this time ends: its seeker has most likely gone."""
SEEKS_PER_ADDRESS = 20
"""Open seeks of one client address (`flood.address_key`), counted in the queue itself so
every process agrees: a classroom behind one NAT fits, a script filling the lobby does not."""
START_WAIT = 15.0
"""Seconds a match that starts by itself waits for players who have not connected before it
starts anyway."""
START_POLL = 0.5
RATING_WINDOW = 100.0
RATING_WIDENING = 50.0
WIDENING_SECONDS = 5.0
GUEST_NAME = "Guest"
BROWSER_KEY = "daily_browser"
"""The session's key for a guest's random browser key: the daily board's (`games.web.daily`),
so a browser is one person for both, and `/play/` writes it before its socket reads it."""

SIGN_IN = "Sign in to play rated games."
ONE_SEEK = "You are seeking a game already: cancel it first (one open seek a person)."
TOO_MANY_SEEKS = (
    f"Too many open seeks from your address (at most {SEEKS_PER_ADDRESS}): wait for a match."
)
GONE = "That seek is gone: someone took it, or its seeker left."
OWN = "That seek is your own: wait for someone to take it."
EXPIRED = "Your seek ended after 10 minutes without a match: seek again."


class SeekError(ValueError):
    """A seek or an accept refused, with the reason for the person who asked."""


class SeekGone(SeekError):
    """No open seek has that id (HTTP 404)."""


class OwnSeek(SeekError):
    """Nobody takes their own seek (HTTP 409)."""


class SignInFirst(SeekError):
    """A rated seek, or a rated seek taken, by a guest (HTTP 403)."""


def seek_rating(account: Any, game: str) -> float:
    """The rating by which `account`'s rated seeks of `game` (a kind's name) pair: its shown
    rating in that kind (`games.rooms.ratings`), a newcomer's 1500 before its first rated game
    there."""
    found = Rating.objects.filter(account=account, kind=game).values_list("rating", flat=True)
    return float(next(iter(found), ratings.CENTRE))


@dataclass(frozen=True, slots=True)
class Seeker:
    """Who seeks: a signed-in `account` (a `User`), else a browser by its session's random key,
    else (a bot without a session) its socket's channel."""

    address: str
    account: Any = None
    browser: str = ""
    channel: str | None = None
    name: str | None = None

    @property
    def person(self) -> str:
        if self.account is not None:
            return f"account:{self.account.pk}"
        if self.browser:
            return f"browser:{self.browser}"
        return f"socket:{self.channel}"

    def shown(self) -> str:
        """The name the seat takes: the account's username, else a clean nickname."""
        if self.account is not None:
            return str(self.account.username)
        try:
            return nicknames.clean_nickname(self.name or GUEST_NAME)
        except nicknames.NicknameError as error:
            raise SeekError(f"name: {error}") from None


@dataclass(frozen=True, slots=True)
class Waiting:
    seek: int
    queue: int
    """Seeks waiting for these settings, this one included."""


@dataclass(frozen=True, slots=True)
class Seat:
    """A matched seeker's seat."""

    code: str
    token: str

    @property
    def url(self) -> str:
        return f"/r/{self.code}/"

    def event(self) -> dict[str, str]:
        """The `matched` message a socket gets."""
        return {"type": "matched", "room": self.code, "url": self.url, "player_token": self.token}


def seek(seeker: Seeker, wanted: Wanted) -> Waiting | Seat:
    """Join the queue: a seat at once when enough compatible seekers wait, else `Waiting`."""
    if wanted.rated and seeker.account is None:
        raise SignInFirst(SIGN_IN)
    name = seeker.shown()
    expire()
    with transaction.atomic():
        _lock_queue(wanted)
        _may_seek(seeker)
        mine = _new_seek(seeker, wanted, name)
        partners = _partners(mine)
        if partners is None:
            transaction.on_commit(news.seeks_changed)
            return Waiting(mine.pk, _queue(wanted).count())
        return _match([*partners, mine], wanted)[mine.pk]


def accept(seek_id: int, seeker: Seeker) -> Seat:
    """Take the open seek `seek_id`: a room with its seeker (and, for a game of more, the other
    seekers of that game waiting, oldest first) and `seeker`. The accepter's own open seek, if
    any, ends: they play this game. Rated seeks take signed-in accepters, whatever their
    rating: accepting one is a choice."""
    name = seeker.shown()
    expire()
    with transaction.atomic():
        wanted = _wanted_of(seek_id)
        _lock_queue(wanted)
        target = Seek.objects.select_for_update(skip_locked=True)
        target = target.filter(pk=seek_id, room__isnull=True).first()
        if target is None:
            raise SeekGone(GONE)
        if target.person == seeker.person:
            raise OwnSeek(OWN)
        if target.rated and seeker.account is None:
            raise SignInFirst(SIGN_IN)
        Seek.objects.filter(person=seeker.person, room__isnull=True).delete()
        mine = _new_seek(seeker, wanted, name)
        others = _compatible(mine).exclude(pk=target.pk)[: wanted.players - 2]
        return _match([target, *others, mine], wanted)[mine.pk]


def cancel(seek_id: int) -> bool:
    """End an open seek (its seeker cancelled); False when it was matched or gone already."""
    with transaction.atomic():
        deleted, _ = Seek.objects.filter(pk=seek_id, room__isnull=True).delete()
        if deleted:
            transaction.on_commit(news.seeks_changed)
    return bool(deleted)


def forget(seek_id: int) -> None:
    """Its socket closed: the seek ends, open or matched (a matched one's room lives on)."""
    with transaction.atomic():
        was_open = Seek.objects.filter(pk=seek_id, room__isnull=True).exists()
        Seek.objects.filter(pk=seek_id).delete()
        if was_open:
            transaction.on_commit(news.seeks_changed)


def expire() -> int:
    """End every seek older than `SEEK_LIFETIME`, telling open ones' sockets; how many ended.
    Run before every seek, accept and list, so no timer is needed: an old seek is never
    paired nor shown."""
    cutoff = timezone.now() - SEEK_LIFETIME
    with transaction.atomic():
        old = list(Seek.objects.filter(created_at__lt=cutoff).values_list("pk", "channel", "room"))
        if not old:
            return 0
        Seek.objects.filter(pk__in=[pk for pk, _, _ in old]).delete()
        for pk, channel, room in old:
            if room is None:
                event = {"type": "expired", "seek": pk, "error": EXPIRED}
                transaction.on_commit(partial(news.tell, channel, event))
        transaction.on_commit(news.seeks_changed)
    return len(old)


def open_seeks() -> list[dict[str, Any]]:
    """The seeks waiting, oldest first (after ending the old ones)."""
    expire()
    return news.open_seeks()


# Pairing ------------------------------------------------------------------------------------------


def _lock_queue(wanted: Wanted) -> None:
    """Hold the queue of these settings until the commit: a seeker's transaction sees every
    seek committed before it. SQLite needs none (`transaction_mode` IMMEDIATE: one writer)."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(repr(wanted).encode())
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [0x5EE6, key - 2**31])


def _may_seek(seeker: Seeker) -> None:
    waiting = Seek.objects.filter(room__isnull=True)
    if waiting.filter(person=seeker.person).exists():
        raise SeekError(ONE_SEEK)
    if waiting.filter(address=seeker.address).count() >= SEEKS_PER_ADDRESS:
        raise SeekError(TOO_MANY_SEEKS)


def _new_seek(seeker: Seeker, wanted: Wanted, name: str) -> Seek:
    """The seek's row; `ONE_SEEK` when the person's other open seek was made at this very
    moment (another process, another queue's lock): the unique constraint decides."""
    try:
        with transaction.atomic():
            return _insert(seeker, wanted, name)
    except IntegrityError:
        raise SeekError(ONE_SEEK) from None


def _insert(seeker: Seeker, wanted: Wanted, name: str) -> Seek:
    account = seeker.account
    return Seek.objects.create(
        game=wanted.game,
        preset=wanted.preset,
        players=wanted.players,
        rated=wanted.rated,
        rating=None if account is None else seek_rating(account, wanted.game),
        person=seeker.person,
        name=name,
        account=account,
        browser="" if account is not None else seeker.browser,
        address=seeker.address,
        channel=seeker.channel,
    )


def _wanted(seek: Seek) -> Wanted:
    return Wanted(seek.game, seek.preset, seek.players, seek.rated)


def _wanted_of(seek_id: int) -> Wanted:
    row = Seek.objects.filter(pk=seek_id, room__isnull=True).first()
    if row is None:
        raise SeekGone(GONE)
    return _wanted(row)


def _queue(wanted: Wanted) -> Any:
    return Seek.objects.filter(
        room__isnull=True,
        game=wanted.game,
        preset=wanted.preset,
        players=wanted.players,
        rated=wanted.rated,
    )


def _compatible(mine: Seek) -> Any:
    """Other people's open seeks of the same settings, oldest first, locked (skipping rows
    another transaction holds: those are being matched)."""
    others = _queue(_wanted(mine)).exclude(pk=mine.pk).exclude(person=mine.person)
    return others.select_for_update(skip_locked=True).order_by("created_at", "pk")


def _partners(mine: Seek) -> list[Seek] | None:
    """Enough compatible seeks to fill the game with `mine`, or None."""
    needed = mine.players - 1
    if not mine.rated:
        found = list(_compatible(mine)[:needed])
    else:
        now = time.time()
        found = [seek for seek in _compatible(mine)[:500] if _in_window(seek, mine, now)]
    return found[:needed] if len(found) >= needed else None


def window(waited_seconds: float) -> float:
    """How far apart two ratings may be for a seeker who waited this long."""
    steps = max(0, int(waited_seconds // WIDENING_SECONDS))
    return RATING_WINDOW + RATING_WIDENING * steps


def _in_window(other: Seek, mine: Seek, now: float) -> bool:
    waited = now - other.created_at.timestamp()
    gap = abs((other.rating or 0.0) - (mine.rating or 0.0))
    return gap <= max(window(waited), window(0))


def _settings(wanted: Wanted) -> dict[str, Any]:
    """The room's settings, as the API's create body would give them."""
    return create_options(room_body(wanted))[1].settings()


def _match(seeks: list[Seek], wanted: Wanted) -> dict[int, Seat]:
    """One room for `seeks` (the oldest hosts it), a seat each, every seek marked with it,
    and each seeker told after the commit. The room is locked: its seats are the strangers'."""
    kind = kind_of(wanted.game)
    room, _ = joining.open_room(kind.name, _settings(wanted), None)
    seats: dict[int, Seat] = {}
    for seek in seeks:
        player = _seat(room, seek)
        seats[seek.pk] = Seat(room.code, player.token)
        transaction.on_commit(partial(news.tell, seek.channel, seats[seek.pk].event()))
    Room.objects.filter(pk=room.pk).update(locked=True, player_cap=len(seeks))
    Seek.objects.filter(pk__in=[seek.pk for seek in seeks]).update(room=room)
    transaction.on_commit(news.seeks_changed)
    if _start_command(kind) is not None:
        transaction.on_commit(partial(_start_soon, room.pk))
    return seats


def _seat(room: Room, seek: Seek) -> Player:
    """A seat under the seek's name; a name too like another's in the room becomes a guest's
    (`check_lookalike`): strangers cannot be asked to choose again."""
    try:
        return joining.join_room(room, seek.name, seek.account)
    except nicknames.NicknameError:
        return joining.join_room(room, GUEST_NAME, seek.account)


# A match starts by itself, when its kind says how ------------------------------------------------


def _start_command(kind: GameKind) -> str | None:
    """The command the server gives for a matched room's host (`Seeking.start_command`)."""
    command = None if kind.seeking is None else kind.seeking.start_command
    return command if command in kind.commands else None


def _start_soon(room_id: int) -> None:
    """After the match's commit: `start_when_ready` on the server's loop; outside a server
    (scripts, the test client) nobody connects anyway, and the host starts it."""
    loop = server_loop()
    if loop is not None:
        context = contextvars.Context()
        loop.call_soon_threadsafe(_start_task, loop, room_id, context=context)


_starting: set[asyncio.Task[bool]] = set()
"""The waits of matches of this process (kept, or asyncio may collect a task mid-wait)."""


def _start_task(loop: asyncio.AbstractEventLoop, room_id: int) -> None:
    task = loop.create_task(start_when_ready(room_id), name=f"lobby-start-{room_id}")
    _starting.add(task)
    task.add_done_callback(_starting.discard)


async def stop() -> None:
    """Cancel the waits of matches (tests: nothing outlives its test's database)."""
    tasks = [task for task in _starting if task.get_loop() is asyncio.get_running_loop()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def start_when_ready(room_id: int, wait: float | None = None) -> bool:
    """Start the matched game once every player matched has a socket open, or after `wait`
    seconds (`START_WAIT`) with whoever came; whether this call started it."""
    deadline = time.monotonic() + (START_WAIT if wait is None else wait)
    while time.monotonic() < deadline:
        await asyncio.sleep(START_POLL)
        if await database_sync_to_async(everyone_here)(room_id):
            break
    outcome = await database_sync_to_async(start_matched)(room_id)
    if outcome is not None:
        room, game = outcome
        autoplay.schedule(room, game)  # its clock, if the kind keeps one (a countdown)
    return outcome is not None


def everyone_here(room_id: int) -> bool:
    seats = Player.objects.filter(room_id=room_id, role=Player.Role.PLAYER)
    return seats.exists() and not seats.filter(connections=0).exists()


def start_matched(room_id: int) -> tuple[Room, Any] | None:
    """The host's start command (`Seeking.start_command`), given by the server for them,
    without the players who have not connected (they leave the room, `leaving.leave`) when
    enough have for a game (`Seeking.players`' fewest); with them, as away players, when fewer
    have. None when the game has started already (the host was quicker) or the room is gone."""
    room = Room.objects.filter(pk=room_id).first()
    game = None if room is None else room.current_game()
    if room is None or game is None:
        return None
    kind = kind_of(room.kind)
    command = _start_command(kind)
    if (
        command is None
        or kind.seeking is None
        or kind.rules.playing_seats is None
        or kind.rules.playing_seats(game.state, game.params) is not None
    ):
        return None  # under way: the seats playing are named
    seats = list(Player.objects.filter(room=room, role=Player.Role.PLAYER))
    if sum(1 for seat in seats if seat.connections > 0) >= kind.seeking.players[0]:
        for seat in seats:
            if seat.connections == 0:
                leaving.leave(room, seat)
    host_id = Room.objects.filter(pk=room_id).values_list("host_id", flat=True).first()
    host = Player.objects.filter(pk=host_id).first()  # handed on if the host was absent
    if host is None:
        return None
    try:
        outcome = playing.command(room, host, Command(command), kind)
    except (Refused, Forbidden):
        return None
    return room, outcome.game
