"""Presence, as the database counts it: each server process's share of a seat's (or a room's
spectators') sockets, its heartbeat, and the sockets of a process that died taken out of the
counts. Telling the room is the live layer's (`live.rosters`); a seat whose first socket opens
or last one closes is told to the game (`seat_presence`: a racer's grace period).
"""

from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import Case, F, Value, When
from django.db.models.functions import Greatest
from django.utils import timezone

from ..kinds import kind_of
from ..protocol.messages import Command
from ..store.models import Player, Presence, Room, ServerProcess
from . import playing


def presence_changed(room: Room, player: Player | None, delta: int, process: str) -> None:
    """Count an opened (+1) or closed (-1) socket of `process` (a `ServerProcess` id). Telling
    the room is left to the live layer, which gathers a room's changes into a few messages a
    second (`live.rosters`); from here it would hop back onto the event loop, which during
    shutdown has stopped, and the process would never exit.

    The count changes only by what the process's own part (`Presence`) held: a socket closing
    after its process was taken for dead (`forget_dead_processes`) was already taken out."""
    with transaction.atomic():
        player_id = None if player is None else player.pk
        applied = _change_share(process, room.pk, player_id, delta)
        if player_id is None:
            _change_counts({}, {room.pk: applied})
        else:
            _change_counts({player_id: applied}, {})
            if applied and kind_of(room.kind).rules.presence is not None:
                seat_presence(room, player_id)


def seat_presence(room: Room, player_id: int) -> None:
    """Tell the game a seat's first socket opened or its last one closed (a racer's grace
    period), as a move when that changes the game; sockets in between change nothing."""
    hook = kind_of(room.kind).rules.presence
    seat = Player.objects.filter(pk=player_id).values_list("number", "connections").first()
    if hook is None or seat is None:
        return
    number, connections = seat
    game = playing.lock_current_game(room)
    applied = hook(game.state, game.params, number, connections > 0)
    if applied is not None and applied.changed:
        player = Player.objects.get(pk=player_id)
        written = playing.record(game, player, Command("back" if connections else "away"), applied)
        playing.announce_move(kind_of(room.kind), room, game, player, applied, written)


def spectators_counted(
    room_id: int, came: int, left: int, process: str, crowd: int | None = None
) -> None:
    """Spectator sockets of `process` in a room since its last presence message, in one
    transaction (`live.rosters`): `left` were written before and are taken out first, as far as
    the process's part still holds them (it may have been taken for dead meanwhile), then `came`
    are added; `crowd`, when it changed, is how many addresses they come from now.

    The room's row is locked first, as the host's delete locks it before its cascade reaches
    these rows: taken the other way round (the share, then the room's count) the two deadlocked
    on PostgreSQL, and the delete answered 500 (CI, a room deleted as its watchers came)."""
    with transaction.atomic():
        if not Room.objects.select_for_update(no_key=True).filter(pk=room_id).exists():
            return  # deleted: its shares went with it
        applied = _change_share(process, room_id, None, -left) if left else 0
        if came:
            applied += _change_share(process, room_id, None, came)
        if crowd is not None:
            Presence.objects.filter(process=process, room_id=room_id, player__isnull=True).update(
                crowd=crowd
            )
        _change_counts({}, {room_id: applied})


def sockets_closed(players: dict[int, int], spectators: dict[int, int], process: str) -> None:
    """Many sockets of `process` gone at once (the process stopping, or its channel layer lost):
    per player id and per room id (spectators), how many. No roster is rendered; each room gets
    a fresh one as its clients reconnect."""
    with transaction.atomic():
        players = {pk: _change_share(process, None, pk, -n) for pk, n in players.items()}
        spectators = {pk: _change_share(process, pk, None, -n) for pk, n in spectators.items()}
        _change_counts(players, spectators)
        _seats_left(pk for pk, taken in players.items() if taken)


def _change_share(process: str, room_id: int | None, player_id: int | None, delta: int) -> int:
    """Add `delta` sockets to the process's part of a player's (or a room's spectators') count;
    returns the change made, which for a closing socket is never more than the part held."""
    if player_id is None:
        shares = Presence.objects.filter(process=process, room_id=room_id, player__isnull=True)
    else:
        shares = Presence.objects.filter(process=process, player_id=player_id)
    if delta > 0:
        if not shares.update(sockets=F("sockets") + delta):
            Presence.objects.create(
                process=process, room_id=room_id, player_id=player_id, sockets=delta
            )
        return delta
    share = shares.first()
    if share is None:
        return 0
    taken = min(-delta, share.sockets)
    if taken == share.sockets:
        share.delete()
    else:
        shares.update(sockets=F("sockets") - taken)
    return -taken


def _change_counts(players: dict[int, int], spectators: dict[int, int]) -> None:
    """The counts, and for a seat whose count leaves or reaches zero, since when it is online
    or away (the host seat passes on by itself after a while away: `host`). Every expression of
    one UPDATE reads the row as it was."""
    now = timezone.now()
    for pk, delta in players.items():
        if delta:
            when = (
                {"online_since": Case(When(connections=0, then=Value(now)), default="online_since")}
                if delta > 0
                else {
                    "away_since": Case(
                        When(connections__lte=-delta, then=Value(now)), default="away_since"
                    )
                }
            )
            Player.objects.filter(pk=pk).update(
                connections=Greatest(F("connections") + delta, Value(0)), **when
            )
    for pk, delta in spectators.items():
        if delta:
            Room.objects.filter(pk=pk).update(
                spectators=Greatest(F("spectators") + delta, Value(0))
            )


def process_seen(process: str) -> bool:
    """A server process's heartbeat. False when its row was missing: a new process, or one
    taken for dead (its sockets are no longer counted; see `forget_dead_processes`)."""
    now = timezone.now()
    if ServerProcess.objects.filter(pk=process).update(last_seen=now):
        return True
    ServerProcess.objects.create(pk=process, last_seen=now)
    return False


def process_stopped(process: str) -> None:
    """A clean stop: the process's row and whatever it still counted go at once."""
    with transaction.atomic():
        _take_out(process)
        ServerProcess.objects.filter(pk=process).delete()


def forget_dead_processes(expiry_seconds: float) -> dict[int, bool]:
    """Take out of the counts the sockets of every process that has not beaten for
    `expiry_seconds` (killed without a goodbye), and of sockets counted under no process row.
    Safe in several processes at once: each dead process's part is taken out once. Returns the
    rooms that changed, each with whether a player (not only spectators) went offline."""
    cutoff = timezone.now() - timedelta(seconds=expiry_seconds)
    dead = set(ServerProcess.objects.filter(last_seen__lt=cutoff).values_list("pk", flat=True))
    alive = ServerProcess.objects.values("pk")
    dead.update(Presence.objects.exclude(process__in=alive).values_list("process", flat=True))
    rooms: dict[int, bool] = {}
    for process in dead:
        with transaction.atomic():
            gone = ServerProcess.objects.filter(pk=process, last_seen__lt=cutoff).delete()[0]
            if not gone and ServerProcess.objects.filter(pk=process).exists():
                continue  # it beat meanwhile
            for room_id, player in _take_out(process):
                rooms[room_id] = rooms.get(room_id, False) or player
    return rooms


def _take_out(process: str) -> list[tuple[int, bool]]:
    """Delete the process's parts and subtract them from the counts; the rows are locked first,
    so two processes sweeping the same one subtract it once (on SQLite, writes are serial)."""
    shares = list(Presence.objects.select_for_update().filter(process=process))
    Presence.objects.filter(pk__in=[share.pk for share in shares]).delete()
    players = {s.player_id: -s.sockets for s in shares if s.player_id is not None}
    spectators = {s.room_id: -s.sockets for s in shares if s.player_id is None}
    _change_counts(players, spectators)
    _seats_left(players)
    return [(s.room_id, s.player_id is not None) for s in shares]


def _seats_left(player_ids: Iterable[int]) -> None:
    """Tell each game whose seat lost its last socket in a sweep (a killed process, a lost
    channel layer), as a closing socket does (`seat_presence`): else a racer whose process died
    is never away, and a race with no time limit never ends."""
    gone = Player.objects.filter(pk__in=list(player_ids), connections=0).select_related("room")
    for player in gone:
        if kind_of(player.room.kind).rules.presence is not None:
            seat_presence(player.room, player.pk)
