"""What a chat app shows for a room, watch or replay link: a title that says what it is and a
short description, from the public timeline alone (`games.kinds.replays.Timeline`). Each kind
says its own (`Replays.link_words`, in its `preview` module) with the words shared here.

Pure: the words come from the room's kind, settings, the game's params and status and the
timeline's seats and statistics, never from a hidden cell. The template escapes them.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.minesweeper import PRESETS
from ..engine.stats import seconds as shown_seconds
from .replays import Page, Timeline, Words
from .table import COMPUTER_SEAT, GameKind, computer_seat

NAMES_SHOWN = 3
"""People named in a title; the rest are counted ("Ana, Bo and 4 others")."""


def together(names: Sequence[str]) -> str:
    """ "Ana", "Ana and Bo", "Ana, Bo and Cy", "Ana, Bo, Cy and 2 others"."""
    if len(names) > NAMES_SHOWN:
        rest = len(names) - NAMES_SHOWN
        names = [*names[:NAMES_SHOWN], f"{rest} other" + ("s" if rest > 1 else "")]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def board_words(width: int, height: int, mines: int) -> str:
    """ "expert", "intermediate", or "20×12" for a custom board."""
    for name, preset in PRESETS.items():
        if (preset.width, preset.height, preset.mines) == (width, height, mines):
            return name
    return f"{width}×{height}"


def a_board(board: str) -> str:
    article = "an" if board[0] in "aeiou8" or board.startswith(("11", "18")) else "a"
    return f"{article} {board} board"


def people(timeline: Timeline) -> list[str]:
    """The persons who sat in the room, by seat (no computer, no race clock)."""
    return [
        seat.name
        for number, seat in sorted(timeline.seats.items())
        if 0 <= number < computer_seat("X")
    ]


def movers(timeline: Timeline) -> list[str]:
    """Who played this game (its statistics' players), or everyone seated before a move."""
    seats = [player["seat"] for player in timeline.stats.get("players", ())]
    named = [timeline.seat(seat).name for seat in seats if seat != COMPUTER_SEAT]
    return named or people(timeline)


def seconds(stats: Mapping[str, Any]) -> str:
    """ " in 8.56 s": the time as the banner shows it (rounded once to 0.01 s, halves up); a
    title of its own rounding had said "8.6 s" beside the banner's "8.56 s" (issue 35)."""
    shown = shown_seconds(stats.get("time_ms"))
    return "" if shown is None else f" in {shown:.2f} s"


def side_names(timeline: Timeline, params: Mapping[str, Any]) -> tuple[str, str]:
    """X's and O's names: a person's nickname, a computer's name, or "an open seat"."""
    names = []
    for mark in "XO":
        side = params.get(mark) or {}
        seat = side.get("seat")
        if side.get("player", "human") != "human":
            names.append(timeline.seat(computer_seat(mark)).name)
        else:
            names.append("an open seat" if seat is None else timeline.seat(seat).name)
    return names[0], names[1]


def two_sided(label: str, timeline: Timeline, params: Mapping[str, Any], page: Page) -> Words:
    x, o = side_names(timeline, params)
    scores = timeline.stats.get("scores")
    score = f", {scores['X']}–{scores['O']}" if scores else ""
    winner = timeline.stats.get("winner_name")
    if winner:
        loser = o if winner == x else x
        title = f"{label}: {winner} beat {loser}{score}"
    elif timeline.over:
        title = f"{label}: {x} and {o} drew{score}"
    else:
        title = f"{label}: {x} vs {o}{score}"
    if page is Page.REPLAY:
        title = f"Replay: {title}"
    rules = "claim more mines than your rival" if scores else "three in a row"
    return Words(title, f"{label}, {rules}, live on Minesweeper Live.")


def plain(timeline: Timeline, room: Mapping[str, Any], page: Page) -> Words:
    return Words(f"A game on Minesweeper Live — {page.value}", "Play together in real time.")


def words(kind: GameKind, timeline: Timeline, room: Mapping[str, Any], page: Page) -> Words:
    """The title and description for a link to a game of `kind` (its `Replays.link_words`, or
    `plain`); `room` holds the room's `settings` and the game's `params`, `state` and `status`
    (storable forms)."""
    link_words = kind.replays.link_words if kind.replays is not None else None
    return (link_words or plain)(timeline, room, page)
