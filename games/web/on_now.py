"""The home page's "On now": one live public game, shown small and live (issue 28).

The pick is the public room with the biggest crowd whose game is under way (a race that has
started goes before a game as watched), and it is sticky: once featured, a game stays until it
ends, its room goes private or empty, or a new game replaces it; only then is another picked.
A crowd is the distinct client addresses its spectator sockets come from (an IPv6 /64 as one;
`models.Presence.crowd`), not the sockets: sixty sockets of one address had bought the pick
(issue 33). And a pick made for its crowd is dropped once its crowd has gone, rather than kept
till its game ends; a game picked with nobody watching (nothing better on) stays as before.
The pick lives in the shared cache (every process features the same game) and each process
keeps what it read for `FRESH_SECONDS`, so a home page view costs no query at all most of the
time, and at most `QUERIES_PER_REFRESH` bounded queries once a second per process, however many
people watch or how many rooms are open (`tests/web/test_on_now.py` counts them).

The board itself is not rendered here: the panel opens the room's spectator socket, whose
snapshot (shared per room and process, `live.snapshots`) fills it, and whose fragments keep it
live. So the home page shows exactly what the watch page shows a spectator, a race's delay
included, and never a hidden mine.
"""

import logging
import threading
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import (
    Case,
    Count,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from ..kinds import KINDS
from ..limits import CACHE_ERRORS
from ..log_limit import warn
from ..store.models import Game, Player, Presence

log = logging.getLogger(__name__)

FRESH_SECONDS = 1.0
"""How long a process reuses the pick it read: the one figure that bounds its queries."""
PICK_KEY = "on-now:pick"
PICK_SECONDS = 6 * 3600
"""The shared pick outlives any game worth featuring; a stale one is checked and replaced."""
NAMES_SHOWN = 3
QUERIES_PER_REFRESH = 3
"""Check the kept pick, pick again when it is over, read the first players' names."""
FEATURED_KINDS = tuple(name for name, kind in KINDS.items() if kind.setup.grid is not None)
"""Kinds with a board of cells, which reads at a small size (not tic-tac-toe's nine squares)."""
RACING_KINDS = tuple(name for name, kind in KINDS.items() if kind.per_seat_boards is not None)


@dataclass(frozen=True, slots=True)
class Featured:
    """What the panel says of the featured game; the board comes over the socket."""

    code: str
    game_id: int
    number: int
    kind: str
    label: str
    described: str
    players: tuple[str, ...]
    more_players: int
    spectators: int | None
    """None when the host hid the count (`games.rooms.host`)."""
    racing: bool
    """A race whose start has been given: spectators watch it late (the room's delay)."""


_kept: tuple[float, Featured | None] = (float("-inf"), None)
_lock = threading.Lock()


def featured(now: float | None = None) -> Featured | None:
    """The game to feature, as this process read it at most `FRESH_SECONDS` ago."""
    global _kept
    now = time.monotonic() if now is None else now
    with _lock:  # one refresh per process at a time; the others take what it read
        if now - _kept[0] >= FRESH_SECONDS:
            _kept = (now, _refresh())
        return _kept[1]


def forget() -> None:
    """Read afresh at the next view (tests)."""
    global _kept
    _kept = (float("-inf"), None)


def _refresh() -> Featured | None:
    try:
        return _pick()
    except CACHE_ERRORS as error:  # the home page renders with the cache (Redis) down
        warn(log, "cache_unavailable", "On now not shown, cache unavailable: %s", error)
        return None


def _pick() -> Featured | None:
    held_id, watched = _held(cache.get(PICK_KEY))
    game = _still_live(held_id)
    if game is not None and watched and not game.crowd:
        game = _candidates().exclude(pk=game.pk).first() or game  # its crowd has gone
        watched = None
    elif game is not None and game.crowd and not watched:
        watched = None  # a quiet pick found its crowd: from now on kept for it
    if game is None:
        game, watched = _candidates().first(), None
    if game is None:
        if held_id is not None:
            cache.delete(PICK_KEY)
        return None
    if watched is None:
        cache.set(PICK_KEY, (game.pk, game.crowd > 0), PICK_SECONDS)
    return _describe(game)


def _held(value: object) -> tuple[int | None, bool | None]:
    """The kept pick: its game, and whether it was picked (or since kept) for a crowd."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], int):
        return value[0], bool(value[1])
    return None, None


def _live_games():
    """Games under way in public rooms where someone plays now, each its room's current one."""
    newer = Game.objects.filter(room=OuterRef("room"), number__gt=OuterRef("number"))
    online = Player.objects.filter(
        room=OuterRef("room"), role=Player.Role.PLAYER, connections__gt=0
    )
    seated = (
        Player.objects.filter(room=OuterRef("room"), role=Player.Role.PLAYER)
        .order_by()
        .values("room")
        .annotate(n=Count("pk"))
        .values("n")
    )
    crowd = (
        Presence.objects.filter(room=OuterRef("room"), player__isnull=True)
        .order_by()
        .values("room")
        .annotate(n=Sum("crowd"))
        .values("n")
    )
    return (
        Game.objects.filter(
            status=Game.Status.PLAYING, room__is_public=True, room__kind__in=FEATURED_KINDS
        )
        .filter(~Exists(newer), Exists(online))
        .annotate(seated=Coalesce(Subquery(seated), 0), crowd=Coalesce(Subquery(crowd), 0))
        .select_related("room")
    )


def _still_live(game_id: int | None) -> Game | None:
    """The featured game, if it is still worth featuring: stickiness means no switch mid-game."""
    return None if game_id is None else _live_games().filter(pk=game_id).first()


def _candidates():
    racing = Case(
        When(Q(room__kind__in=RACING_KINDS) & Q(started_at__isnull=False), then=Value(1)),
        default=Value(0),
        output_field=IntegerField(),
    )
    return _live_games().order_by("-crowd", -racing, "-room__created_at", "-pk")


def _describe(game: Game) -> Featured:
    room = game.room
    kind = KINDS[room.kind]
    names = tuple(
        Player.objects.filter(room=room, role=Player.Role.PLAYER)
        .order_by("-connections", "number")
        .values_list("nickname", flat=True)[:NAMES_SHOWN]
    )
    return Featured(
        code=room.code,
        game_id=game.pk,
        number=game.number,
        kind=room.kind,
        label=kind.label,
        described=kind.rendering.describe_settings(room.settings),
        players=names,
        more_players=max(0, game.seated - len(names)),
        spectators=room.spectators if room.spectator_count_shown else None,
        racing=kind.per_seat_boards is not None and game.started_at is not None,
    )
