"""A person who leaves a two-sided game (tic-tac-toe): their seat is freed after a grace period.

Without this, a seated player who closes the page stalls the game for good. The kind's
`presence` hook notes when a side's person went away (their last socket closed) beside the
engine's state, under `AWAY`: `{mark: {"since": Unix seconds, "free": bool}}`. The kind's
`Clock` frees the seat once `grace()` has passed (a `tick`, announced to everyone); from then
on the remaining player may claim the win (`claim_win`, a forfeit in the engine). A person who
comes back first finds everything as before. Computers hold no seat, so they never go away.

Who is away is presence, not game state, but it is kept in `Game.state` so that every process
(and the clock's driver) sees the same deadline, the way Flags keeps its turn timer's start.
"""

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings

from .table import Applied, Lineup, Refused

AWAY = "away"
"""Key of `Game.state` beside the engine's: the sides whose person is away, by mark."""
FREED = "seat_free"
"""`Move.action` of the clock's event that frees a seat (`rooms.playing.tick` logs a kind's own name)."""
TAKE = "take_seat"
"""The log's move by which a seated visitor without a side took a free seat."""
NO_MOVES = ("away", "back", FREED, TAKE)
"""Actions in the move log that change nothing on the board: replays pass over them."""
CLAIM = "claim_win"
"""The log's move by which the player who stayed ended the game (the other's forfeit)."""


RATED_SEAT = (
    "This game is rated: the seat of a player who left is not taken over (they lose it once "
    "the other side claims the win)."
)


@dataclass(frozen=True, slots=True)
class SeatChanged:
    """A side's person went away (`away`), came back, or stayed away too long (`free`)."""

    mark: str
    away: bool
    free: bool = False


def grace() -> float:
    """Seconds a side's person may be away before their seat is free (`SEAT_GRACE_SECONDS`)."""
    return float(settings.SEAT_GRACE_SECONDS)


def _playing(state: Mapping[str, Any]) -> bool:
    return state.get("status") == "playing"


def presence(
    state: dict[str, Any], params: dict[str, Any], seat: int, online: bool, now: float
) -> Applied | None:
    """A side's person left (their last socket closed) or came back; None when that changes
    nothing: a seat without a side, a game over, or no change."""
    mark = next((m for m in ("X", "O") if params[m]["seat"] == seat), None)
    away = dict(state.get(AWAY) or {})
    if mark is None or not _playing(state) or (mark in away) == (not online):
        return None
    if online:
        del away[mark]
    else:
        away[mark] = {"since": now, "free": False}
    return Applied({**state, AWAY: away}, "playing", (SeatChanged(mark, not online),))


def still_away(
    previous: Mapping[str, Any],
    previous_params: Mapping[str, Any],
    state: dict[str, Any],
    params: Mapping[str, Any],
    online: Collection[int],
) -> dict[str, Any]:
    """The next game (a rematch) notes again who was away at the end of the last one and is
    still (not `online`), under the side their seat holds now, their grace period starting
    afresh: they may be gone for good, and no socket of theirs will close again to say so."""
    seats = {previous_params[mark]["seat"] for mark in (previous.get(AWAY) or {})} - set(online)
    away = {
        mark: {"since": time.time(), "free": False}
        for mark in ("X", "O")
        if params[mark]["seat"] is not None and params[mark]["seat"] in seats
    }
    return {**state, AWAY: away} if away else state


def due(state: Mapping[str, Any]) -> float | None:
    """When the next away seat is freed (Unix seconds), or None."""
    if not _playing(state):
        return None
    away = (state.get(AWAY) or {}).values()
    return min((entry["since"] + grace() for entry in away if not entry["free"]), default=None)


def tick(state: dict[str, Any], now: float) -> Applied | None:
    """Free every seat whose person has been away for the grace period; None if none is due."""
    away = dict(state.get(AWAY) or {})
    freed = [
        mark
        for mark, entry in away.items()
        if not entry["free"] and entry["since"] + grace() <= now and _playing(state)
    ]
    if not freed:
        return None
    for mark in freed:
        away[mark] = {**away[mark], "free": True}
    events = tuple(SeatChanged(mark, True, free=True) for mark in freed)
    return Applied({**state, AWAY: away}, "playing", events, {"action": FREED, "freed": freed})


def left(state: dict[str, Any], params: dict[str, Any], seat: int) -> tuple[str, Applied] | None:
    """A side's player left the room for good (`games.rooms.leaving`): their seat is free at once,
    as if the grace period had passed, so the other side may claim the win (or a visitor take
    the seat); logged as the clock's `FREED`, which replays pass over. None: a seat without a
    side, a game over, or a seat already free."""
    mark = next((m for m in ("X", "O") if params[m]["seat"] == seat), None)
    away = dict(state.get(AWAY) or {})
    if mark is None or not _playing(state) or away.get(mark, {}).get("free"):
        return None
    away[mark] = {"since": time.time(), "free": True}
    events = (SeatChanged(mark, True, free=True),)
    return FREED, Applied(
        {**state, AWAY: away}, "playing", events, {"action": FREED, "freed": [mark]}
    )


def carried(before: Mapping[str, Any], applied: Applied) -> Applied:
    """`applied` (a move's, which the engine stored afresh) still knowing who is away, even at
    the game's end: the rematch notes them again (`still_away`)."""
    if not before.get(AWAY):
        return applied
    return replace(applied, state={**applied.state, AWAY: before[AWAY]})


def free_mark(state: Mapping[str, Any]) -> str | None:
    """The mark whose seat is free (its person away past the grace period), or None."""
    away = state.get(AWAY) or {}
    return next((mark for mark, entry in away.items() if entry["free"]), None)


def claim_win(
    state: dict[str, Any],
    lineup: Lineup,
    params: dict[str, Any],
    forfeit: Callable[[dict[str, Any], str], Applied],
) -> Applied:
    """The remaining player ends the game by the absent side's forfeit (`forfeit(state, mark)`
    is the kind's engine move). Refused unless the sender holds the other side, the game is on
    and the absent side's seat is free."""
    mine = next((m for m in ("X", "O") if params[m]["seat"] == lineup.seat), None)
    if mine is None:
        raise Refused("Only a player in this game can claim the win.")
    if not _playing(state):
        raise Refused("The game is over: there is no win left to claim.")
    gone = "O" if mine == "X" else "X"
    if free_mark(state) != gone:
        raise Refused(
            f"{gone} has not left: a win can be claimed once their seat has been empty "
            f"for {grace():g} s."
        )
    return carried(state, forfeit(state, gone))


def take_seat(state: dict[str, Any], lineup: Lineup, params: dict[str, Any]) -> Applied:
    """A seated visitor without a side takes the free seat: the game goes on with them, and the
    absent player's seat no longer holds that side (the new `Applied.params`)."""
    if params.get("rated"):
        raise Refused(RATED_SEAT)
    if any(params[mark]["seat"] == lineup.seat for mark in ("X", "O")):
        raise Refused("You already play in this game: only a visitor without a side can take it.")
    free = free_mark(state) if _playing(state) else None
    if free is None:
        raise Refused(
            f"No seat is free: a seat frees up when its player has been away for {grace():g} s."
        )
    away = {mark: entry for mark, entry in state[AWAY].items() if mark != free}
    sides = {**params, free: {**params[free], "seat": lineup.seat}}
    summary = {"action": TAKE, "taken": free}
    events = (SeatChanged(free, False),)
    return Applied({**state, AWAY: away}, "playing", events, summary, params=sides)
