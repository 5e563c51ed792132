"""What the two-sided kinds (tic-tac-toe, Flags) share: X and O, each a person or a computer.

A room is made for two *entrants*: entrant 1 holds X in game 1 and entrant 2 holds O. People
take the entrants who are people in the order they join (`Player.number`); a rematch swaps the
sides. Each kind keeps its own `Side` (its marks come from its own engine); these functions
take any object with `mark`, `entrant`, `player`, `seat` and `is_computer`, and a kind's sides
as `{mark: Side}`, X first. What their pages share is in `side_pages`; this module imports
no Django, like the rules that use it.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from . import seats_away
from .table import Applied, Message, Params, Rules, SettingsError, State, StateField

HUMAN = "human"


def creator_sits(settings: dict[str, Any]) -> bool:
    """The creator takes the first seat that is a person; none when two computers play."""
    return HUMAN in (settings["x"], settings["o"])


def seats_for_people(settings: dict[str, Any]) -> int:
    """The seats people take, one per side that is a person's; later comers watch."""
    return [settings["x"], settings["o"]].count(HUMAN)


def playing_seats(state: Any, params: dict[str, Any]) -> frozenset[int]:
    """The people's seats in this game (computers have none); any other seat only watches."""
    return frozenset(
        params[mark]["seat"] for mark in ("X", "O") if params[mark]["seat"] is not None
    )


def next_sides(settings: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """The next game's sides (`X`, `O`): game 1 from the room's settings (`x`, `o`), people
    seated in order and computers without a seat; every later one swaps the game before's."""
    if previous is not None:
        return {"X": dict(previous["O"]), "O": dict(previous["X"])}
    seats = iter(range(2))
    params: dict[str, Any] = {}
    for entrant, (mark, key) in enumerate((("X", "x"), ("O", "o")), start=1):
        player = settings[key]
        seat = next(seats) if player == HUMAN else None
        params[mark] = {"entrant": entrant, "player": player, "seat": seat}
    return params


def sides_of(params: dict[str, Any], marks: Iterable[Any], side: Callable[..., Any]) -> dict:
    """A game's sides as the kind's `Side`s, by its engine's marks (X first)."""
    return {
        mark: side(
            mark,
            params[mark.value]["entrant"],
            params[mark.value]["player"],
            params[mark.value]["seat"],
        )
        for mark in marks
    }


def side_of_seat(sides: Mapping[Any, Any], seat: int) -> Any:
    """The side a person's seat holds this game, or None when they have no seat in it."""
    return next((side for side in sides.values() if side.seat == seat), None)


def rated_sides(x: str, o: str, rated: Any) -> dict[str, Any]:
    """`{"rated": True}` for the settings of a rated room, `{}` otherwise; SettingsError when
    a computer would hold a side of it (a computer has no account to rate)."""
    if not isinstance(rated, bool):
        raise SettingsError("rated must be true or false.", "rated")
    if not rated:
        return {}
    if x != HUMAN or o != HUMAN:
        raise SettingsError(
            "Rated games have no computer players: X and O must both be people.",
            "x" if x != HUMAN else "o",
        )
    return {"rated": True}


def with_rated(settings: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """A game's params knowing the room is rated: leaving and taking a seat read it."""
    return {**params, "rated": True} if settings.get("rated") else params


def standings(state: Mapping[str, Any], params: Mapping[str, Any]) -> dict[int, int] | None:
    """The people's seats by rank once the game is over (`GameKind.rules.standings`): the winner's
    side 1, the other 2; a draw, both 1. None while on, or when a computer holds a side."""
    if state.get("status") in (None, "playing"):
        return None
    seats = {mark: params[mark]["seat"] for mark in ("X", "O")}
    if None in seats.values():
        return None
    winner = state.get("winner")
    return {seat: 1 if winner in (None, mark) else 2 for mark, seat in seats.items()}


def may_restart(sides: Callable[[dict[str, Any]], Mapping[Any, Any]]) -> Callable[..., str | None]:
    """A two-sided kind's `GameKind.rules.may_restart`, from its `sides(params)`."""
    return lambda state, params, asker: restart_refusal(sides(params), asker)


def restart_refusal(sides: Mapping[Any, Any], asker: Any) -> str | None:
    """Why `asker` (a `table.Restart`) may not start the next game: a new game swaps the sides
    and leaves this one unfinished, so while it is under way only the host may call it off
    (everyone is told), and never someone without a side in it. None: they may."""
    if not asker.under_way:
        return None
    if side_of_seat(sides, asker.seat) is None:
        return "You have no side in this game: a new game can start once it is over."
    if asker.host:
        return None
    return "The game is under way: Rematch comes when it is over (only the host can call it off)."


def computer_at(sides: Mapping[Any, Any], turn: Any, playing: bool) -> Any:
    """The computer side whose turn it is, or None (a person's turn, or the game is over)."""
    if not playing:
        return None
    side = sides[turn]
    return side if side.is_computer else None


WINNER = StateField(
    "winner",
    Literal["X", "O"] | None,
    "Tic-tac-toe and Flags: the winner's side; null while playing (and after a tic-tac-toe draw).",
)
YOU = StateField(
    "you",
    Literal["X", "O"] | None,
    "Tic-tac-toe and Flags: the side your seat holds this game, when the request carries your "
    "player token (null without a seat in this game).",
)
"""What both two-sided kinds add to the API's room state (`ApiView.state_fields`)."""


def two_sided_rules(
    apply: Callable[[State, Message, int, Params], Applied],
    presence: Callable[[State, Params, int, bool], Applied | None],
    sides: Callable[[dict[str, Any]], Mapping[Any, Any]],
) -> Rules:
    """A two-sided kind's rules: its own moves and presence, and the room's life every such kind
    lives alike (who may call a game off, a seat left free, who plays, how a game ranks)."""
    return Rules(
        apply=apply,
        may_restart=may_restart(sides),
        presence=presence,
        leave=seats_away.left,
        carry_over=seats_away.still_away,
        playing_seats=playing_seats,
        standings=standings,
    )
