"""Creating a room and joining it: the room with its first game, a seat under a unique name (the
first one hosts the room), and why an invite cannot seat anyone now (a lock, the host's cap,
`MAX_PLAYERS_PER_ROOM`, a two-seat game's seats taken).
"""

import secrets
from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..broadcast import announce
from ..kinds import kind_of, seats_away
from ..kinds.table import SIGN_IN_TO_RATE
from ..store import kept_games, rows
from ..store.models import Game, Player, Room
from ..store.palette import colour_for_seat
from . import nicknames
from .base import Forbidden
from .nicknames import clean_nickname, unique_nickname


class SignInToRate(Forbidden):
    """A guest (no account) creating or joining a rated room: 403, `SIGN_IN_TO_RATE`."""

    def __init__(self) -> None:
        super().__init__(SIGN_IN_TO_RATE)


def check_rated(settings: dict[str, Any], account: Any) -> None:
    """`SignInToRate` for a guest in a rated room: a rating needs an account to belong to."""
    if settings.get("rated") and account is None:
        raise SignInToRate


class RoomFull(Exception):
    """Every seat of the room is taken (`MAX_PLAYERS_PER_ROOM`): watching is still open."""


MAX_PLAYERS_PER_ROOM = 50
"""Seats per room. Each seat is a row, a roster entry and a share of every broadcast; without a
cap anyone with the code could join until the room could no longer be sent (issue 14;
docs/operations.md, "Limits"). Spectators are not seats: they are counted, not capped."""


ROOM_FULL = (
    f"This room is full: all {MAX_PLAYERS_PER_ROOM} seats are taken. You can still watch the game."
)


ROOM_LOCKED = "The host locked this room: no new players. You can still watch the game."


ROOM_CAPPED = (
    "This room is full: its host allows {cap} players and all their seats are taken. "
    "You can still watch the game."
)


def join_refused(locked: bool, cap: int, players: int) -> str | None:
    """Why nobody may take a new seat (host controls: a lock, the player cap; the hard cap of
    `MAX_PLAYERS_PER_ROOM`), or None."""
    if locked:
        return ROOM_LOCKED
    if players >= MAX_PLAYERS_PER_ROOM:
        return ROOM_FULL
    if players >= cap:
        return ROOM_CAPPED.format(cap=cap)
    return None


def new_seed() -> int:
    return secrets.randbits(62)


@transaction.atomic
def create_room(
    kind: str, settings: dict[str, Any], *, is_public: bool = True, seed: int | None = None
) -> Room:
    """A room with its first game; `settings` must already be validated by the kind's rules.
    `seed` deals the first game (reproducible boards); None: a random one, as every later game."""
    room = Room.objects.create(kind=kind, settings=settings, is_public=is_public)
    create_game(room, number=1, seed=seed)
    return room


@transaction.atomic
def open_room(
    kind: str,
    settings: dict[str, Any],
    creator: str | None,
    *,
    is_public: bool = True,
    seed: int | None = None,
    account: Any = None,
) -> tuple[Room, Player | None]:
    """A room and its creator's seat (none when `creator` is None; `account`'s, a signed-in
    creator's), together or not at all: a nickname refused, or any error on the way, leaves no
    room without its host behind. `SignInToRate`: a guest asked for a rated room (a room
    opened with no seat, as quick match opens one, is checked seat by seat as they join)."""
    if creator is not None:
        check_rated(settings, account)
    room = create_room(kind, settings, is_public=is_public, seed=seed)
    return room, None if creator is None else join_room(room, creator, account)


def create_game(
    room: Room, number: int, previous: Game | None = None, seed: int | None = None
) -> Game:
    """A new game; its params come from the room's settings and the previous game (tic-tac-toe
    swaps sides on a rematch)."""
    kind = kind_of(room.kind)
    params = kind.setup.game_params(room.settings, None if previous is None else previous.params)
    seed = new_seed() if seed is None else seed
    state = kind.setup.initial_state(params, seed)
    if previous is not None and kind.rules.carry_over is not None:
        online = Player.objects.filter(room=room, connections__gt=0).values_list(
            "number", flat=True
        )
        state = kind.rules.carry_over(previous.state, previous.params, state, params, set(online))
    kept_games.forget(room.pk)  # the write would find the newer game anyway: skip the try
    return Game.objects.create(room=room, number=number, params=params, seed=seed, state=state)


def join_refusal(room: Room) -> str | None:
    """Why the invite cannot seat anyone now (`join_refused`), read without a lock."""
    people = Player.objects.filter(room=room, role=Player.Role.PLAYER).count()
    return join_refused(room.locked, room.player_cap, people)


def seats_taken(room: Room) -> str | None:
    """Why a newcomer cannot take a seat that plays (every seat taken), for the invite to say
    before it asks a name; None while one is free. A read, not a lock: `join_room` decides."""
    people = Player.objects.filter(room=room, role=Player.Role.PLAYER).count()
    refused = join_refused(room.locked, room.player_cap, people)
    if refused is not None:
        return refused
    seats = kind_of(room.kind).setup.seats_for_people
    if seats is None or people < seats(room.settings):
        return None
    current = room.current_game()
    if current is not None and seats_away.free_mark(current.state) is not None:
        return None  # its player left long ago: whoever joins may take the seat
    taken = "Both seats are taken" if seats(room.settings) == 2 else "The seat is taken"
    return f"{taken} — you can watch."


class SeatKicked(PermissionError):
    """The account's seat in the room was kicked by the host: no new seat until `until`."""

    def __init__(self, until: datetime) -> None:
        super().__init__(until.isoformat())
        self.until = until


def account_seat(room: Room, account: Any) -> Player | None:
    """The seat a signed-in person (`account`, a `User`) holds in the room already, if any."""
    if account is None:
        return None
    return Player.objects.filter(room=room, account=account).order_by("-number").first()


@transaction.atomic
def join_room(room: Room, nickname: str, account: Any = None) -> Player:
    """A new seat, under a name no one else in the room has (see `unique_nickname`); the first
    player to join hosts the room. `RoomFull` in a locked room, or past its player cap (or
    `MAX_PLAYERS_PER_ROOM` seats). A signed-in person (`account`, a `User`) who holds a seat
    here already gets that seat back, so a kick or a mute binds to the account, not to a
    browser's cookie: `SeatKicked` while the kick lasts; `SignInToRate` for a guest in a
    rated room."""
    check_rated(room.settings, account)
    wanted = clean_nickname(nickname)
    # Lock the room, not its last seat: PostgreSQL re-reads only the row it waited for, so two
    # joins locking the old last seat would both take the next number (IntegrityError, a 500).
    # The lock also keeps the seat cap exact when many join at once.
    locked, cap = (
        Room.objects.select_for_update()
        .filter(pk=room.pk)
        .values_list("locked", "player_cap")
        .get()
    )
    kept = account_seat(room, account)  # after the lock: two joins at once make one seat
    if kept is not None:
        if kept.kicked_until is not None and kept.kicked_until > timezone.now():
            raise SeatKicked(kept.kicked_until)
        return kept
    seats = list(Player.objects.filter(room=room).values_list("number", "nickname", "role"))
    people = sum(1 for seat in seats if seat[2] == Player.Role.PLAYER)
    refused = join_refused(locked, cap, people)
    if refused is not None:
        raise RoomFull(refused)
    number = max((seat[0] for seat in seats), default=-1) + 1
    nicknames.check_lookalike(wanted, (seat[1] for seat in seats))
    taken = {seat[1].casefold() for seat in seats}
    name = unique_nickname(wanted, taken)
    player = Player.objects.create(
        room=room, number=number, nickname=name, colour=colour_for_seat(number), account=account
    )
    if room.host_id is None:
        Room.objects.filter(pk=room.pk, host__isnull=True).update(host=player)
    transaction.on_commit(partial(announce.roster, room.pk))
    return player


def find_player(room: Room, token: object) -> Player | None:
    if not isinstance(token, str) or not token:
        return None
    return rows.first(Player, room=room.pk, token=token)
