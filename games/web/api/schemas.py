"""What the API answers about a room and its games, as the OpenAPI schema shows it."""

from collections.abc import Iterable
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import create_model

from ...kinds import KINDS
from ...kinds.table import GameKind
from .. import history

GameStatus = Literal["playing", "won", "lost", "draw"]
"""The game's, not the reader's: in tic-tac-toe and Flags `won` means someone won (`winner`)."""


Side = Literal["X", "O"]


class CellOut(Schema):
    x: int
    y: int
    state: Literal["hidden", "flagged", "revealed", "mine", "exploded", "wrong-flag"] = Field(
        description="hidden (a flag lifted), flagged, revealed; once a game is lost mine, "
        "exploded (the mine hit) and wrong-flag."
    )
    count: int | None = Field(description="Mines around a revealed cell; null otherwise.")


class ClaimedOut(Schema):
    x: int
    y: int
    state: Literal["claimed"] = Field(description="Flags: a mine found, claimed by `seat`.")
    seat: Side


class SquareOut(Schema):
    cell: int = Field(ge=0, le=8, description="Tic-tac-toe: the square, row by row.")
    mark: Side


class PlayerOut(Schema):
    name: str
    seat: int
    online: bool
    username: str | None = Field(
        description="The account a signed-in person's seat belongs to; null for a guest's."
    )


class RatingChangeOut(Schema):
    username: str
    before: int = Field(description="The shown rating before the game (1500-centred).")
    after: int


class SharedRoomState(Schema):
    """The fields of every room's state; each kind adds its own (`ApiView.state_fields`), so
    this module names no kind's (`RoomState`)."""

    game: str
    number: int
    status: GameStatus
    version: int
    width: int
    height: int
    mines_left: int | None = None
    board: list[str]
    players: list[PlayerOut]
    bot: bool | None = Field(
        None,
        description="Minesweeper and races: whether the host seated the Solver bot (a race's "
        "computer racer joins `racers` only at the start).",
    )
    rated: bool | None = Field(
        None, description='Present (true) in a rated room only (docs/api.md, "Ratings").'
    )
    rating_changes: list[RatingChangeOut] | None = Field(
        None,
        description="A rated room: each player's shown rating before and after this game, "
        "once it has ended (empty until then).",
    )


def room_state(kinds: Iterable[GameKind]) -> type[SharedRoomState]:
    """`GET /api/rooms/<code>`'s answer: the shared fields and every kind's own, each optional
    (a room's answer carries its kind's alone), so that no kind's field is dropped unseen. A
    field two kinds declare (a two-sided game's `winner`) is declared once, as the first does."""
    fields: dict[str, Any] = {}
    for kind in kinds:
        for state_field in kind.api.state_fields:
            fields.setdefault(
                state_field.name,
                (state_field.annotation, Field(None, description=state_field.description)),
            )
    return create_model("RoomState", __base__=SharedRoomState, **fields)


RoomState = room_state(KINDS.values())
"""The registered kinds' room state, as the API answers and documents it."""


class LoggedMoveOut(Schema):
    seq: int
    ms: int | None = Field(description="Milliseconds since the game's first move.")
    seat: int = Field(
        description="The mover's seat; 2147483647 for a computer, and in a two-sided game "
        "(tic-tac-toe, Flags) the side's computer as `stats` names it: 2147483645 for X's, "
        "2147483646 for O's."
    )
    action: str
    x: int | None = None
    y: int | None = None
    cell: int | None = None
    side: Side | None = Field(None, description="Tic-tac-toe and Flags: the side that moved.")


class SeatBoardOut(Schema):
    seat: int
    rows: list[str]


class GameOut(Schema):
    game: str
    number: int
    status: GameStatus
    version: int
    width: int | None = None
    height: int | None = None
    stats: dict[str, Any] | None = Field(
        None,
        description="Minesweeper: time_ms, time_s, clicks and per player seat, name, clicks and "
        "cells_revealed; once the game is over also three_bv, bv_per_s, ioe, hit_by and per "
        "player right_flags, wrong_flags and hit_mine. Tic-tac-toe: time_ms, moves, winner. "
        "A finished race: the winner's time_ms, time_s, bv_per_s, clicks and ioe, the board's "
        "three_bv, winner (seat) and winner_name, and per racer by place: seat, name, place, "
        "standing, time_ms, mines_hit, three_bv, bv_per_s, clicks, ioe, progress.",
    )
    moves: list[LoggedMoveOut] = Field(
        description="The logged moves after `after`, in order, at most `limit` of them "
        f"({history.MOVES_PER_PAGE} by default and at most)."
    )
    next: str | None = Field(
        None,
        description="The address of the moves after these, or null when these are the last "
        "(as of `version`: a game under way may log more).",
    )
    board: list[str] | None = Field(None, description="The board after the last move.")
    boards: list[SeatBoardOut] | None = Field(
        None,
        description="A finished race: every racer's board at the end, by seat (`board` is "
        "null); a race under way shows neither, nor its moves.",
    )
    mines: list[tuple[int, int]] | None = Field(
        None, description="Every mine as [x, y] once the game is over; null before."
    )
