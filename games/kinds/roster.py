"""How much of a room's roster pages and fragments show, whatever the number of seats.

The roster is part of every snapshot and is sent to every socket of the room whenever someone
joins or comes and goes, so its size must not grow with the room: a room joined a few thousand
times once made a snapshot larger than the websocket's message limit, and nobody could open the
room any more (issue 14). The first `ROSTER_SHOWN` seats are listed, the rest counted.
"""

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from ..store.models import Player, Room

ROSTER_SHOWN = 20
"""Seats listed by name; docs/operations.md, "Limits"."""


@dataclass(frozen=True, slots=True)
class Cut:
    shown: list[Player]
    more: str
    """How many more are seated, written out ("1,700"); empty when all are shown."""


def spectators(room: Room, playing: Collection[int] | None) -> int | None:
    """Everyone watching, as pages count them: the room's spectators (the watch link), plus the
    people seated and online who have no part in this game (`playing`: the seats that play;
    None: every seat does), such as a third visitor to a tic-tac-toe room or a late racer.
    None when the host hid the count (`games.rooms.host`)."""
    if not room.spectator_count_shown:
        return None
    if playing is None:
        return room.spectators
    idle = (
        p
        for p in room.players.all()
        if p.role == Player.Role.PLAYER and p.online and p.number not in playing
    )
    return room.spectators + sum(1 for _ in idle)


def _nobody(player: Player) -> bool:
    return False


def roster_cut(players: Iterable[Player], first: Callable[[Player], bool] = _nobody) -> Cut:
    """The seated players (spectator seats left out) to list: `first` ones, then those online,
    each group in seat order."""
    seated = [player for player in players if player.role == Player.Role.PLAYER]
    seated.sort(key=lambda player: (not first(player), not player.online))
    more = len(seated) - ROSTER_SHOWN
    shown = seated[:ROSTER_SHOWN]
    mark_bot_accounts(shown)
    return Cut(shown, f"{more:,}" if more > 0 else "")


def mark_bot_accounts(players: list[Player]) -> None:
    """Set `bot_account` on each of `players` (for the roster's "bot" badge): whether its
    account is a bot account (`games.players.models.Profile`, read by the relation's name, as
    this layer sits below the accounts). One query, and none when every seat is a guest's."""
    ids = {player.account_id for player in players if player.account_id is not None}
    bots = set()
    if ids:
        found = get_user_model().objects.filter(pk__in=ids, profile__bot=True)
        bots = set(found.values_list("pk", flat=True))
    for player in players:
        player.bot_account = player.account_id in bots
