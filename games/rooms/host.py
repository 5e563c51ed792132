"""Host controls: the room's host decides who may join, talk and stay, and hands the seat on.

Every door (the room websocket, `POST /api/rooms/<code>/host`, a bot's JSON socket) sends the
same bodies (docs/api.md, "Host controls"), parsed at the edge (`messages.host_command`) and
applied by `apply` in one transaction with the room row locked; what the room must hear (a
notice on every screen, the sockets to close, the host's menu) is announced after the commit
(`announce.host`). Where a command makes no sense for a room's kind (a player cap in a two-seat
game) the kind table says so (`GameKind.setup.seats_for_people`), never a kind's name.

Spectators have no seat: the host names one by a handle (`handle`), derived from the browser's
`watcher` cookie and the room, which their chat lines carry. A kicked spectator's handle is kept
on the room (`Room.kicked`, at most `KICKS_KEPT`), a kicked seat's deadline on its row.

A host away (no socket open, a bot's included, and no API call with the seat's token) for
`HOST_AWAY_SECONDS` loses the seat to the player present the longest: every server process's
presence heartbeat looks (`pass_from_away_hosts`), in the database, so it works whichever process
the host's socket was on. An API call counts as presence (`seen_on_api`): a room made and played
over the API stays its creator's while they keep calling.

The host also revokes a seat's token (`revoke_token`) and deletes the room (`delete_room`).
"""

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from ..broadcast import announce
from ..broadcast.host_view import MAX_CAP, MIN_CAP
from ..kinds import kind_of
from ..kinds.table import Invalid, Refused
from ..protocol import audiences
from ..protocol.messages import SPECTATOR_HANDLE, HostCommand
from ..store import kept_games
from ..store.models import Player, Room, new_player_token
from .base import Forbidden

KICKS_KEPT = 100
"""Kicked spectators' handles kept per room; past it the bans that end first go
(docs/operations.md, "Limits")."""
MUTES_KEPT = 100
"""Muted spectators' handles kept per room; past it the oldest is unmuted."""
AWAY_ROOMS_PER_SWEEP = 100
"""Rooms one heartbeat hands a host seat on in, at most; the next beat takes the rest."""
API_SEEN_SECONDS = 10.0
"""A seat's API calls mark it present at most this often: one write per seat per 10 s, however
fast it calls (docs/operations.md, "Limits")."""

NOT_HOST = "Only the room's host can do that."
SPECTATORS_NOT_HOST = "Spectators cannot use host controls: only the room's host can."
KICKED = "The host removed you from this room: you can come back in {minutes}."


def handle(room_code: str, watcher: str | None) -> str:
    """A spectator's handle in a room: the browser's `watcher` cookie, not shown as it is (a
    handle works in its room only), or for a socket without one (a bot) a fresh one of its own."""
    if not watcher:
        return "s" + secrets.token_hex(SPECTATOR_HANDLE)[: SPECTATOR_HANDLE - 1]
    key = settings.SECRET_KEY.encode()
    digest = hmac.new(key, f"{room_code}:{watcher}".encode(), hashlib.sha256).hexdigest()
    return digest[:SPECTATOR_HANDLE]


COOKIE = "watcher"
"""The browser's own random id, set by the room and watch pages (`web.views`)."""


def kick_seconds() -> float:
    return float(getattr(settings, "HOST_KICK_SECONDS", 600))


def away_seconds() -> float:
    return float(getattr(settings, "HOST_AWAY_SECONDS", 60))


def kicked_text(until: float) -> str:
    """Why a kicked person is refused, and when they may come back."""
    minutes = max(1, round((until - time.time()) / 60))
    return KICKED.format(minutes="1 minute" if minutes == 1 else f"{minutes} minutes")


def seat_kicked(player: Player | None) -> str | None:
    """Why this seat (its token, its browser's session) is refused, or None."""
    if player is None or player.kicked_until is None or player.kicked_until <= timezone.now():
        return None
    return kicked_text(player.kicked_until.timestamp())


def spectator_kicked(room: Room, spectator: str | None) -> str | None:
    """Why this spectator's handle is refused in the room, or None."""
    until = room.kicked.get(spectator) if spectator else None
    return kicked_text(until) if until is not None and until > time.time() else None


def seen_on_api(player: Player) -> None:
    """A call with the seat's token: the seat is present now, as with a socket open. The away
    rule (`pass_from_away_hosts`) counts from `away_since`, which a socket closing sets; a call
    while no socket is open moves it on, so a host who plays by the API alone (a script, a bot
    that polls) is not handed over to whoever holds a socket. A seat with a socket open is
    present already and costs no write; so does one marked less than `API_SEEN_SECONDS` ago."""
    if player.connections:
        return
    now = timezone.now()
    if (player.away_since or player.joined_at) > now - timedelta(seconds=API_SEEN_SECONDS):
        return
    Player.objects.filter(pk=player.pk, connections=0).update(away_since=now)


@transaction.atomic
def apply(room: Room, asker: Player | None, command: HostCommand) -> str:
    """The command, for `asker` (None: a spectator), with the room row locked: the notice every
    screen is shown. `Forbidden` for anyone but the host; `Invalid` or `Refused` with the
    reason for a command the room cannot take; nothing changes then."""
    if asker is None or asker.is_spectator:
        raise Forbidden(SPECTATORS_NOT_HOST)
    fresh = Room.objects.select_for_update().get(pk=room.pk)
    if fresh.host_id != asker.pk:
        raise Forbidden(NOT_HOST)
    done = _COMMANDS[command.action](fresh, asker, command)
    tell = partial(
        announce.host, fresh.pk, command.action, done.notice, done.closes, done.menus, done.also
    )
    transaction.on_commit(tell)
    return done.notice


@dataclass(frozen=True, slots=True)
class _Done:
    notice: str
    closes: tuple[str, ...] = ()
    """Audience keys whose sockets close (`audiences.seat`, `audiences.watcher`)."""
    menus: tuple[int, ...] = ()
    """Seats whose host menu changes besides the host's (the old host after a transfer)."""
    also: tuple[str, ...] = ()
    """Audience keys told the notice besides the players (issue 35: "Ana muted Bo." is no
    spectator's business): every spectator for their chat's mute, one spectator for their own."""


def _seat(room: Room, number: int | None, *, doing: str) -> Player:
    player = Player.objects.filter(room=room, number=number, role=Player.Role.PLAYER).first()
    if player is None:
        raise Invalid(f"This room has no seat {number}: {doing} names a player's seat.")
    return player


def _kick(room: Room, host: Player, command: HostCommand) -> _Done:
    until = time.time() + kick_seconds()
    if command.spectator is not None:
        kicked = {h: t for h, t in room.kicked.items() if t > time.time()}
        kicked[command.spectator] = until
        # Bounded: past it the bans that end first go (docs/operations.md, "Limits").
        room.kicked = dict(sorted(kicked.items(), key=lambda item: -item[1])[:KICKS_KEPT])
        room.save(update_fields=["kicked"])
        closes: tuple[str, ...] = (audiences.watcher(command.spectator),)
        return _Done(f"{host.nickname} removed a spectator from the room.", closes)
    player = _seat(room, command.seat, doing="kick")
    if player.pk == host.pk:
        raise Invalid("You cannot kick yourself: hand the host seat on first (transfer).")
    player.kicked_until = datetime.fromtimestamp(until, tz=timezone.get_current_timezone())
    player.save(update_fields=["kicked_until"])
    closes = (audiences.seat(player.number), audiences.json_seat(player.number))
    return _Done(f"{host.nickname} removed {player.nickname} from the room.", closes)


def _lock(room: Room, host: Player, command: HostCommand) -> _Done:
    locked = command.action == "lock"
    if room.locked == locked:
        raise Refused(f"The room is already {'locked' if locked else 'open'}.")
    room.locked = locked
    room.save(update_fields=["locked"])
    if locked:
        return _Done(f"{host.nickname} locked the room: no new players (spectators welcome).")
    return _Done(f"{host.nickname} opened the room to new players.")


def _cap(room: Room, host: Player, command: HostCommand) -> _Done:
    kind = kind_of(room.kind)
    if kind.setup.seats_for_people is not None:
        seats = kind.setup.seats_for_people(room.settings)
        raise Refused(
            f"A {kind.label} room has {seats} seat{'s' if seats != 1 else ''} to play: a player "
            "cap does not apply (lock the room instead)."
        )
    players = command.players
    assert players is not None
    if not MIN_CAP <= players <= MAX_CAP:
        raise Invalid(f'"players" must be {MIN_CAP} to {MAX_CAP}, got {players}.')
    room.player_cap = players
    room.save(update_fields=["player_cap"])
    return _Done(f"{host.nickname} set the room's player cap to {players}.")


def _visibility(room: Room, host: Player, command: HostCommand) -> _Done:
    room.is_public = bool(command.on)
    room.save(update_fields=["is_public"])
    if room.is_public:
        return _Done(f"{host.nickname} made the room public: it is listed on the home page.")
    return _Done(f"{host.nickname} made the room private: only its link leads here.")


def _spectator_count(room: Room, host: Player, command: HostCommand) -> _Done:
    room.spectator_count_shown = bool(command.on)
    room.save(update_fields=["spectator_count_shown"])
    shown = "shows" if room.spectator_count_shown else "hides"
    return _Done(f"{host.nickname} {shown} the spectator count.")


def _mute(room: Room, host: Player, command: HostCommand) -> _Done:
    on = command.action == "mute"
    verb = "muted" if on else "unmuted"
    if command.spectators:
        room.spectators_muted = on
        room.save(update_fields=["spectators_muted"])
        return _Done(f"{host.nickname} {verb} the spectators' chat.", also=(audiences.SPECTATORS,))
    if command.spectator is not None:
        muted = [h for h in room.muted_spectators if h != command.spectator]
        if on:
            muted = [*muted, command.spectator][-MUTES_KEPT:]
        room.muted_spectators = muted
        room.save(update_fields=["muted_spectators"])
        also = (audiences.watcher(command.spectator),)
        return _Done(f"{host.nickname} {verb} a spectator.", also=also)
    player = _seat(room, command.seat, doing=command.action)
    if player.pk == host.pk and on:  # unmuting oneself is fine (one muted before a transfer)
        raise Invalid("You cannot mute yourself.")
    player.muted = on
    player.save(update_fields=["muted"])
    return _Done(f"{host.nickname} {verb} {player.nickname}.")


def _transfer(room: Room, host: Player, command: HostCommand) -> _Done:
    player = _seat(room, command.seat, doing="transfer")
    if player.pk == host.pk:
        raise Invalid("You are the host already: name another player's seat.")
    if seat_kicked(player) is not None:
        raise Refused(f"{player.nickname} was removed from the room: choose someone else.")
    _make_host(room, player)
    return _Done(f"{host.nickname} made {player.nickname} the host.", menus=(host.number,))


def _make_host(room: Room, player: Player) -> None:
    """`player` hosts the room from now on, unmuted: the host holds the mute, and a host muted
    by the one before would have no one to lift it."""
    room.host = player
    room.save(update_fields=["host"])
    if player.muted:
        player.muted = False
        player.save(update_fields=["muted"])


_COMMANDS = {
    "kick": _kick,
    "lock": _lock,
    "unlock": _lock,
    "cap": _cap,
    "visibility": _visibility,
    "spectator_count": _spectator_count,
    "mute": _mute,
    "unmute": _mute,
    "transfer": _transfer,
}


def pass_from_away_hosts(seconds: float) -> list[int]:
    """Hand the host seat of every room whose host has had no socket nor API call
    (`seen_on_api`) for `seconds` to the player present the longest (online the longest, then
    seated the longest), and tell the room. Only rooms with such a player are looked at. Safe
    in several processes at once: each room is looked at again with its row locked. Returns the
    rooms whose host changed."""
    cutoff = timezone.now() - timedelta(seconds=seconds)
    away = Q(host__away_since__lt=cutoff) | Q(
        host__away_since__isnull=True, host__joined_at__lt=cutoff
    )
    rooms = (
        Room.objects.filter(away, host__connections=0, players__connections__gt=0)
        .values_list("pk", flat=True)
        .distinct()[:AWAY_ROOMS_PER_SWEEP]
    )
    return [pk for pk in list(rooms) if _pass_on(pk, cutoff)]


@transaction.atomic
def _pass_on(room_id: int, cutoff: datetime) -> bool:
    room = Room.objects.select_for_update().filter(pk=room_id).first()
    host = None if room is None else Player.objects.filter(pk=room.host_id).first()
    if room is None or host is None or host.connections > 0:
        return False
    if (host.away_since or host.joined_at) >= cutoff:
        return False
    now = timezone.now()
    heir = (
        Player.objects.filter(room=room, role=Player.Role.PLAYER, connections__gt=0)
        .exclude(pk=host.pk)
        .exclude(kicked_until__gt=now)
        .order_by(F("online_since").asc(nulls_last=True), "joined_at", "number")
        .first()
    )
    if heir is None:
        return False
    _make_host(room, heir)
    notice = f"{host.nickname} has been away: {heir.nickname} is the host now."
    transaction.on_commit(partial(announce.host, room.pk, "away", notice, (), (host.number,)))
    return True


def revoke_token(room: Room, host: Player, seat: int) -> Player:
    """A new token for seat `seat`, asked by the room's host: the old one is refused from now on
    (403 in the API, 4403 on a socket) and the seat's open sockets close with 4403. Tokens
    otherwise never expire: this is how a leaked one (a bot's, a shared link's) stops working.
    The seat keeps its name and its moves; nobody holds it until the host hands its new token
    over (the answer carries it)."""
    with transaction.atomic():
        fresh = Room.objects.select_for_update().get(pk=room.pk)
        if fresh.host_id != host.pk:
            raise Forbidden("Only the host can revoke a seat's token.")
        player = Player.objects.filter(room=room, number=seat).first()
        if player is None:
            raise Invalid(f"This room has no seat {seat}.")
        if player.pk == host.pk:
            raise Invalid("The host's own token cannot be revoked.")
        player.token = new_player_token()
        player.save(update_fields=["token"])
        transaction.on_commit(partial(announce.token_revoked, room.pk, seat))
    return player


def delete_room(room: Room, host: Player) -> None:
    """The room, its seats, games and moves deleted, asked by its host: its code answers 404
    from now on, and every socket in it is told and closed (4404) after the commit. A bot that
    makes a room per game would otherwise leave every one behind for good."""
    with transaction.atomic():
        fresh = Room.objects.select_for_update().filter(pk=room.pk).first()
        if fresh is None:
            return  # deleted meanwhile: the same result
        if fresh.host_id != host.pk:
            raise Forbidden("Only the host can delete the room.")
        fresh.delete()
        transaction.on_commit(partial(announce.room_closed, room.pk))
        transaction.on_commit(partial(kept_games.forget, room.pk))
