"""A player leaves a room for good: the seat is freed at once, and its token stops working.

Every door (the room page's Leave button, the socket's `{"action": "leave"}`, the API's
`POST /api/rooms/<code>/leave`) calls `leave`. With the room row locked, in one transaction:
the game under way hears it through the kind (`GameKind.rules.leave`: a racer gives up, a two-sided
game's seat is free at once so the other side may claim the win), the seat stops being a
player's (it keeps its number and name, which the move log and the chat lines name), its token
is replaced so the old one is refused like a kicked seat's, and a host who leaves hands the room
to the player present the longest (or to the next to join). After the commit the roster drops
the seat on every screen, everyone reads who left, and the seat's own sockets close (`LEFT`).
"""

from dataclasses import dataclass
from functools import partial

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ..broadcast import announce, outbox
from ..kinds import kind_of, seats_away
from ..kinds.table import GameKind, Lineup
from ..protocol import audiences
from ..protocol.messages import Command
from ..store.models import Game, Player, Room, new_player_token
from . import host
from .base import Forbidden
from .playing import announce_move, lock_current_game, record

LEFT = 4410
"""The close code of a seat's sockets once its player left: the page goes to the watch page and
does not reconnect (a seat that is gone, as HTTP's 410 says)."""
LEFT_REASON = "You left the room: you are watching now."


@dataclass(frozen=True, slots=True)
class Left:
    """Who left, and who hosts the room now (None: nobody until someone joins)."""

    seat: int
    name: str
    host: int | None


@transaction.atomic
def leave(room: Room, player: Player) -> Left:
    """`player` leaves `room` (see the module's docstring); `Forbidden` for a seat
    that is not a player's any more (it left already)."""
    fresh = Room.objects.select_for_update().get(pk=room.pk)
    seat = Player.objects.filter(pk=player.pk, role=Player.Role.PLAYER).first()
    if seat is None:
        raise Forbidden("You are not playing in this room.")
    _tell_the_game(fresh, seat)
    seat.role = Player.Role.SPECTATOR
    seat.token = new_player_token()
    seat.save(update_fields=["role", "token"])
    hosted = fresh.host_id == seat.pk
    heir = _hand_on(fresh, seat) if hosted else None
    notice = f"{seat.nickname} left the room."
    if heir is not None:
        notice += f" {heir.nickname} is the host now."
    transaction.on_commit(partial(_announce, fresh.pk, seat.number, notice, heir is not None))
    if hosted:
        return Left(seat.number, seat.nickname, None if heir is None else heir.number)
    return Left(seat.number, seat.nickname, _host_number(fresh))


def _tell_the_game(room: Room, seat: Player) -> None:
    """What leaving does to the game under way, logged and announced as a move of the seat."""
    kind = kind_of(room.kind)
    if kind.rules.leave is None:
        return
    game = lock_current_game(room)
    outcome = kind.rules.leave(game.state, game.params, seat.number)
    if outcome is None:
        return
    action, applied = outcome
    if applied.changed:
        written = record(game, seat, Command(action), applied)
        announce_move(kind, room, game, seat, applied, written)
    if game.params.get("rated") and game.status == Game.Status.PLAYING:
        _claimed_for_the_other_side(kind, room, game, seat)


def _claimed_for_the_other_side(kind: GameKind, room: Room, game: Game, gone: Player) -> None:
    """A rated two-sided game is lost by leaving it (docs/contracts.md, "Players and ratings"):
    the other side's claim of the win is made for them at once, logged as theirs (a replay reads
    a claim as its sender's opponent forfeiting), and the game's end rates both."""
    claim = kind.commands.get(seats_away.CLAIM)
    if claim is None:  # a race: the leaver gave up, and ranks last
        return
    sides = [game.params.get(mark) or {} for mark in ("X", "O")]
    seats = [side.get("seat") for side in sides if side.get("seat") not in (None, gone.number)]
    winner = Player.objects.filter(room=room, number__in=seats).first()
    if winner is None:  # the other side is a computer's, which a rated game never has
        return
    lineup = Lineup(seat=winner.number, host=room.host_id == winner.pk, seats=())
    applied = claim(game.state, lineup, game.params)
    written = record(game, winner, Command(seats_away.CLAIM), applied)
    announce_move(kind, room, game, winner, applied, written)


def _hand_on(room: Room, gone: Player) -> Player | None:
    """The host seat to the player present the longest (online first, then seated the longest),
    as when a host is away (`host.pass_from_away_hosts`); None, and no host, when nobody plays:
    the next to join hosts the room (`joining.join_room`)."""
    heir = (
        Player.objects.filter(room=room, role=Player.Role.PLAYER)
        .exclude(pk=gone.pk)
        .exclude(kicked_until__gt=timezone.now())
        .order_by(
            F("connections").desc(), F("online_since").asc(nulls_last=True), "joined_at", "number"
        )
        .first()
    )
    if heir is None:
        Room.objects.filter(pk=room.pk).update(host=None)
        return None
    host._make_host(room, heir)
    return heir


def _host_number(room: Room) -> int | None:
    return Player.objects.filter(pk=room.host_id).values_list("number", flat=True).first()


def _announce(room_id: int, seat: int, notice: str, host_changed: bool) -> None:
    """The seat's sockets close (`LEFT`), then everyone reads who left, with the roster, the
    spectator count and the new host's menu as they are now (`announce.host`: a host notice,
    which spectators read too here, since the roster changes on their screens as well)."""
    outbox.send(room_id, {}, controls=audiences.left(seat))
    menus = (seat,) if host_changed else ()
    announce.host(room_id, "leave", notice, (), menus, also=(audiences.SPECTATORS,))
