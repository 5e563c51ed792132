"""What the API answers about a room and its games, as the OpenAPI schema shows it."""

from typing import Any, Literal

from ninja import Field, Schema

from .. import history

GameStatus = Literal["playing", "won", "lost", "draw"]
"""The game's, not the reader's: in tic-tac-toe and Flags `won` means someone won (`winner`)."""


Side = Literal["X", "O"]


Standing = Literal["racing", "finished", "eliminated", "gave-up", "dnf", "timed-out"]


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


class RacerOut(Schema):
    seat: int = Field(description="The racer's seat; 2147483647 for the Solver bot.")
    name: str | None
    standing: Standing
    progress: int = Field(ge=0, le=100)
    mines_hit: int
    frozen_ms: int
    time_ms: int | None
    away: bool
    computer: bool


class ResultOut(Schema):
    seat: int
    name: str | None
    place: int
    standing: Standing
    time_ms: int | None
    mines_hit: int
    three_bv: int
    bv_per_s: float | None
    clicks: int = Field(description="The start cell Go opened counts as the first.")
    ioe: float | None
    progress: int


class RaceOut(Schema):
    phase: Literal["lobby", "countdown", "racing", "over"]
    go_in_ms: int | None
    you: RacerOut | None = Field(description="Your racer, when the request carries its token.")
    racers: list[RacerOut]
    results: list[ResultOut] | None = Field(description="By place, once the race is over.")


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


class RoomState(Schema):
    game: str
    number: int
    status: GameStatus
    version: int
    width: int
    height: int
    mines_left: int | None = None
    board: list[str]
    players: list[PlayerOut]
    winner: Literal["X", "O"] | None = Field(
        None,
        description="Tic-tac-toe and Flags: the winner's side; null while playing (and after a "
        "tic-tac-toe draw).",
    )
    you: Literal["X", "O"] | None = Field(
        None,
        description="Tic-tac-toe and Flags: the side your seat holds this game, when the request "
        "carries your player token (null without a seat in this game).",
    )
    turn: Literal["X", "O"] | None = Field(
        None, description="Flags: the side to move; null once the game is over."
    )
    scores: dict[str, int] | None = Field(
        None, description='Flags: mines claimed per side, {"X": n, "O": n}.'
    )
    bombs: dict[str, bool] | None = Field(
        None, description='Flags: whether each side still holds its bomb, {"X": true, "O": false}.'
    )
    mines: int | None = Field(None, description="Flags: mines on the board.")
    to_win: int | None = Field(None, description="Flags: mines a side needs to win.")
    race: RaceOut | None = Field(
        None,
        description="A race: its phase, every racer's progress, yours with your token, and the "
        "results at the end. `board` is your own board; without a racer's token it is all "
        "hidden.",
    )
    bot: bool | None = Field(
        None,
        description="Minesweeper and races: whether the host seated the Solver bot (a race's "
        "computer racer joins `racers` only at the start).",
    )
    turn_seconds: int | None = Field(
        None, description="Flags: the turn timer in seconds (0: none); a turn past it passes."
    )
    rated: bool | None = Field(
        None, description='Present (true) in a rated room only (docs/api.md, "Ratings").'
    )
    rating_changes: list[RatingChangeOut] | None = Field(
        None,
        description="A rated room: each player's shown rating before and after this game, "
        "once it has ended (empty until then).",
    )
    turn_deadline: float | None = Field(
        None,
        description="Flags with a turn timer: Unix time (seconds) at which the current turn "
        "passes; null before the game's first move, without a timer, and once it is over.",
    )


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
