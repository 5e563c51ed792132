"""What the pages of the two-sided kinds (tic-tac-toe, Flags) share: each side named, the roster
with the mark each seat holds, and when computers playing alone start their next game. The
sides are a kind's `rules.sides(params)` (see `sides`).
"""

import math
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.utils import timezone

from ..store.models import Game, Player, Room
from .replays import Seat
from .roster import roster_cut, spectators
from .seats_away import SeatChanged
from .sides import HUMAN
from .table import Applied, NewGame, computer_seat


def people(room: Room) -> dict[int, Player]:
    return {p.number: p for p in room.players.all() if p.role == Player.Role.PLAYER}


def side_view(side: Any, seated: dict[int, Player], both_computers: bool) -> dict[str, Any]:
    """One side as the page names it: the person's nickname, or which computer."""
    player = seated.get(side.seat) if side.seat is not None else None
    if side.is_computer:
        short = f"Computer {side.entrant}" if both_computers else "Computer"
        name = f"{short} ({side.player})"
    else:
        name = short = player.nickname if player is not None else "Open seat"
    return {
        "mark": side.mark.value,
        "entrant": side.entrant,
        "kind": side.player,
        "seat": side.seat,
        "is_computer": side.is_computer,
        "player": player,
        "name": name,
        "short": short,
        "waiting": not side.is_computer and player is None,
    }


def views(room: Room, sides: Mapping[Any, Any]) -> dict[Any, dict[str, Any]]:
    """Each side as the page names it, by mark."""
    both = all(side.is_computer for side in sides.values())
    seated = people(room)
    return {mark: side_view(side, seated, both) for mark, side in sides.items()}


NEXT_GAME_SAID = " The next game starts by itself."
"""How the last move's line ends when the computers start the next game: the status line
beside it counts the seconds down, so the line gives no number of its own that would disagree a
second later."""


def next_game(game: Game, computers_only: bool, after: float) -> dict[str, int] | None:
    """When a game the computers played alone is over: when the next one starts by itself
    (`at_ms`, for scripts) and in how many whole seconds from now (`in`, which the page counts
    down from the moment the fragment arrives, whatever its clock says)."""
    if not game.is_over or not computers_only:
        return None
    ended = game.finished_at or game.created_at
    at = ended + timedelta(seconds=after)
    left = max(0, math.ceil((at - timezone.now()).total_seconds()))
    return {"at_ms": int(at.timestamp() * 1000), "in": left}


def roster(room: Room, sides: Mapping[Any, Any]) -> dict[str, Any]:
    """The first of everyone with a seat in the room (`roster_cut`: the two playing this game
    first), with the mark they hold this game, and how many more there are."""
    marks = {side.seat: side.mark.value for side in sides.values()}
    cut = roster_cut(room.players.all(), first=lambda player: player.number in marks)
    entries = [{"player": player, "mark": marks.get(player.number, "")} for player in cut.shown]
    return {"roster": entries, "roster_more": cut.more, "spectators": spectators(room, marks)}


def new_game_narration(news: NewGame, x: dict[str, Any], plays_x: str) -> str:
    """The rematch for everyone: who started it and, sides having swapped, who plays X now (`x`,
    its view; `plays_x`, what the line says they do)."""
    if news.starter is None:
        started = "Next game"
    elif news.interrupted:
        started = f"{news.starter} restarted the game"
    else:
        started = f"Rematch started by {news.starter}"
    return f"{started}." if x["waiting"] else f"{started}: {x['name']} {plays_x}."


def matchup(settings: dict[str, Any]) -> str:
    """ "person vs strong computer", of a room's settings."""
    return " vs ".join(
        "person" if player == HUMAN else f"{player} computer"
        for player in (settings["x"], settings["o"])
    )


def side_seats(seats: Mapping[int, Seat], sides: Mapping[Any, Any]) -> dict[int, Seat]:
    """People by their seats, and each computer side at its own seat (`computer_seat`) named by
    its label ("Computer (perfect)"). `sides`: a two-sided kind's `{mark: Side}`."""
    named = dict(seats)
    for mark, side in sides.items():
        if side.is_computer:
            named[computer_seat(mark.value)] = Seat(side.label, "bot")
    return named


def winner_name(named: Mapping[int, Seat], sides: Mapping[Any, Any], winner: Any) -> str | None:
    """Who won a two-sided game, as history and replays say it ("Cy", "Computer (perfect)");
    None for a draw or a game still played. `named`: `side_seats`' answer."""
    if winner is None:
        return None
    side = sides[winner]
    seat = computer_seat(winner.value) if side.is_computer else side.seat
    found = named.get(seat)
    return found.name if found is not None else winner.value


def seat_free_status(sides: Mapping[Any, dict[str, Any]], gone: Any) -> dict[str, Any]:
    """The status line once `gone`'s player has been away the grace period (`seats_away`):
    everyone is told the seat is free; the one who stayed may claim the win (`claimer`)."""
    name, stayer = sides[gone]["name"], sides[gone.other]["seat"]
    you = {} if stayer is None else {stayer: f"{name} left — you may claim the win."}
    text = f"{name} left — the seat is free."
    return {
        "kind": "left",
        "text": text,
        "you": you,
        "mark": gone.value,
        "claimer": stayer,
        "gone": name,
    }


def seat_news(names: Mapping[str, str], applied: Applied) -> str:
    """The activity line after a side's player went away, came back, lost their seat, or the
    other claimed the win (`names`: each mark's name)."""
    taken = applied.summary.get("taken")
    if taken is not None:  # `names` are the new holders'
        return f"{names[taken]} took the free seat and plays {taken}."
    gone = applied.summary.get("forfeited")
    if gone is not None:
        other = "O" if gone == "X" else "X"
        return f"{names[gone]} left: {names[other]} claimed the win."
    event = applied.events[-1]
    assert isinstance(event, SeatChanged)
    if event.free:
        return f"{names[event.mark]} left — the seat is free."
    return f"{names[event.mark]} {'went away' if event.away else 'is back'}."
