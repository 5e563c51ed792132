"""Tic-tac-toe rules: one pure function turns `(state, move)` into `(new_state, events)`.

Squares are numbered 0..8 row by row, as the websocket's `{"action": "mark", "cell": N}` names them.
X always moves first ("rematch swaps sides" swaps which player holds which mark, not who opens), so
the whole position follows from the squares alone: the other fields of `State` are derived once,
checked on construction, and kept for readers and storage.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .errors import GameOverError, InvalidMoveError, OutOfBoundsError, ParseError

SIZE = 9

Line = tuple[int, int, int]

LINES: tuple[Line, ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
"""The eight winning lines, in the order used to pick one when a move completes two."""


class Mark(Enum):
    X = "X"
    O = "O"  # noqa: E741 - the letter is the mark's own name

    @property
    def other(self) -> "Mark":
        return Mark.O if self is Mark.X else Mark.X


class Status(Enum):
    PLAYING = "playing"
    WON = "won"
    DRAW = "draw"


class SquareTakenError(InvalidMoveError):
    """A move on a square that already holds a mark."""


class NotYourTurnError(InvalidMoveError):
    """A move by the mark that is not to move."""


class InvalidPositionError(ParseError):
    """Squares or fields that no game can reach (only stored or typed positions produce them)."""


Squares = tuple[Mark | None, ...]


@dataclass(frozen=True, slots=True)
class State:
    """A position. Build it with `new_game`, `apply_move`, `parse` or `from_dict`.

    `turn` is whose move it would be (X when the counts are equal); it still alternates after the
    game ends, so check `status` first. `winning_line` is the first completed line in `LINES`.
    `forfeited` is the mark whose player left the game unfinished (`forfeit`): the other won.
    """

    squares: Squares
    turn: Mark
    status: Status
    winner: Mark | None
    winning_line: Line | None
    forfeited: Mark | None = None

    def __post_init__(self) -> None:
        """Refuse inconsistent fields, so every State in the system is a reachable position."""
        got = (self.turn, self.status, self.winner, self.winning_line)
        expected = _derive_fields(self.squares)
        if self.forfeited is not None and expected[1] is Status.PLAYING:
            expected = (expected[0], Status.WON, self.forfeited.other, None)
        if got != expected:
            raise InvalidPositionError(
                f"fields do not match the squares {_text(self.squares)!r}: "
                f"got {_describe(got)}, expected {_describe(expected)}"
            )


@dataclass(frozen=True, slots=True)
class Move:
    """`mark` says who moves, so a move out of turn is refused rather than silently re-marked."""

    square: int
    mark: Mark


@dataclass(frozen=True, slots=True)
class SquarePlaced:
    square: int
    mark: Mark


@dataclass(frozen=True, slots=True)
class Forfeited:
    """`mark`'s player left an unfinished game and the other claimed the win."""

    mark: Mark


@dataclass(frozen=True, slots=True)
class GameEnded:
    status: Status
    winner: Mark | None
    line: Line | None


Event = SquarePlaced | Forfeited | GameEnded


def new_game() -> State:
    """The empty board, X to move."""
    return _derive((None,) * SIZE)


def apply_move(state: State, move: Move) -> tuple[State, tuple[Event, ...]]:
    """Place `move.mark` on `move.square`; raises a narrow InvalidMoveError when the rules refuse.

    Bad input (a square off the board) is reported before state refusals (game over, not your turn,
    square taken), so the shell can tell a malformed request from a move that came too late.
    """
    square, mark = move.square, move.mark
    _check_square(square)
    if not isinstance(mark, Mark):
        raise InvalidMoveError(f"mark must be Mark.X or Mark.O, got {mark!r}")
    if state.status is not Status.PLAYING:
        raise GameOverError(
            f"cannot place {mark.value} on square {square}: the game is over ({_result(state)})"
        )
    if mark is not state.turn:
        raise NotYourTurnError(
            f"cannot place {mark.value} on square {square}: it is {state.turn.value}'s turn"
        )
    taken = state.squares[square]
    if taken is not None:
        raise SquareTakenError(f"square {square} is already taken by {taken.value}")
    new_state = _derive(state.squares[:square] + (mark,) + state.squares[square + 1 :])
    events: tuple[Event, ...] = (SquarePlaced(square, mark),)
    if new_state.status is not Status.PLAYING:
        events += (GameEnded(new_state.status, new_state.winner, new_state.winning_line),)
    return new_state, events


def forfeit(state: State, mark: Mark) -> tuple[State, tuple[Event, ...]]:
    """`mark` loses an unfinished game by leaving it: the other mark wins, with no line. Whether
    the player really left (and for long enough) is the shell's to judge; the rules only record
    the result, so replays and history show it."""
    if state.status is not Status.PLAYING:
        raise GameOverError(f"cannot forfeit as {mark.value}: the game is over ({_result(state)})")
    new_state = State(state.squares, state.turn, Status.WON, mark.other, None, mark)
    return new_state, (Forfeited(mark), GameEnded(Status.WON, mark.other, None))


def legal_moves(state: State) -> tuple[int, ...]:
    """Empty squares in order; none once the game is over."""
    if state.status is not Status.PLAYING:
        return ()
    return tuple(square for square, mark in enumerate(state.squares) if mark is None)


def winning_line(squares: Squares, mark: Mark) -> Line | None:
    """The first line of `LINES` that `mark` holds completely, if any."""
    for line in LINES:
        if all(squares[square] is mark for square in line):
            return line
    return None


# Text form -----------------------------------------------------------------------------------

_CHARS = {Mark.X: "X", Mark.O: "O", None: "."}
_MARKS = {char: mark for mark, char in _CHARS.items()}


def rows(state: State) -> tuple[str, str, str]:
    """The board as three rows of `X`, `O` and `.`: the API's `board` field."""
    text = _text(state.squares)
    return text[0:3], text[3:6], text[6:9]


def render(state: State) -> str:
    """The rows joined by newlines, no trailing newline: the debug view and test-fixture format."""
    return "\n".join(rows(state))


def parse(text: str) -> State:
    """The inverse of `render`. Surrounding blank lines and indentation are ignored (fixtures).

    Whose turn it is follows from the counts, since X always moves first.
    """
    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) != 3 or any(len(line) != 3 for line in lines):
        raise ParseError(f"a board is three rows of three characters, got {text!r}")
    chars = "".join(lines)
    bad = sorted(set(chars) - set(_MARKS))
    if bad:
        raise ParseError(f"unknown square {bad[0]!r} in {text!r}: use X, O or .")
    return _derive(tuple(_MARKS[char] for char in chars))


# Storage form --------------------------------------------------------------------------------


def to_dict(state: State) -> dict[str, Any]:
    """JSON-able storage form. Only `squares` (and `forfeited`, present only in a forfeited
    game) is needed to restore; the rest is for readers."""
    stored = {
        "squares": _text(state.squares),
        "turn": state.turn.value,
        "status": state.status.value,
        "winner": None if state.winner is None else state.winner.value,
        "winning_line": None if state.winning_line is None else list(state.winning_line),
    }
    if state.forfeited is not None:
        stored["forfeited"] = state.forfeited.value
    return stored


def from_dict(data: Mapping[str, Any]) -> State:
    """The inverse of `to_dict`; the stored derived fields must agree with the squares."""
    squares = data.get("squares") if isinstance(data, Mapping) else None
    if not isinstance(squares, str) or len(squares) != SIZE or set(squares) - set(_MARKS):
        raise ParseError(f"squares must be {SIZE} characters of X, O or ., got {squares!r}")
    state = _derive(tuple(_MARKS[char] for char in squares))
    forfeited = data.get("forfeited")
    if forfeited in ("X", "O") and state.status is Status.PLAYING:
        state = forfeit(state, Mark(forfeited))[0]
    derived = to_dict(state)
    del derived["squares"]
    stored = {key: data.get(key) for key in derived}
    if stored != derived:
        raise InvalidPositionError(
            f"stored fields {stored!r} do not match the squares {squares!r}: expected {derived!r}"
        )
    return state


# Derivation ----------------------------------------------------------------------------------

_Fields = tuple[Mark, Status, Mark | None, Line | None]


def _derive(squares: Squares) -> State:
    """The one State that `squares` describes; raises InvalidPositionError if none can."""
    return State(squares, *_derive_fields(squares))


def _derive_fields(squares: Squares) -> _Fields:
    """Turn, status, winner and line from the squares, refusing positions no game reaches."""
    _check_squares(squares)
    x_count, o_count = squares.count(Mark.X), squares.count(Mark.O)
    if x_count - o_count not in (0, 1):
        raise InvalidPositionError(
            f"X moves first, so X has as many marks as O or one more: got {x_count} X and "
            f"{o_count} O in {_text(squares)!r}"
        )
    turn = Mark.X if x_count == o_count else Mark.O
    x_line, o_line = winning_line(squares, Mark.X), winning_line(squares, Mark.O)
    if x_line and o_line:
        raise InvalidPositionError(f"both X and O hold a line in {_text(squares)!r}")
    winner = Mark.X if x_line else Mark.O if o_line else None
    if winner is turn:
        # The winner moved last, so the other mark is to move; anything else means play went on.
        raise InvalidPositionError(f"{turn.value} won but play went on in {_text(squares)!r}")
    if winner is not None:
        status = Status.WON
    elif None in squares:
        status = Status.PLAYING
    else:
        status = Status.DRAW
    return turn, status, winner, x_line or o_line


def _check_squares(squares: object) -> None:
    if (
        not isinstance(squares, tuple)
        or len(squares) != SIZE
        or not all(mark is None or isinstance(mark, Mark) for mark in squares)
    ):
        raise InvalidPositionError(
            f"squares must be a tuple of {SIZE} Mark or None, got {squares!r}"
        )


def _check_square(square: object) -> None:
    """Squares are plain ints; a bool or a string from a form is refused here, at the edge."""
    if not isinstance(square, int) or isinstance(square, bool) or not 0 <= square < SIZE:
        raise OutOfBoundsError(f"square {square!r} is off the board: squares are 0..{SIZE - 1}")


def _text(squares: Squares) -> str:
    return "".join(_CHARS[mark] for mark in squares)


def _describe(fields: _Fields) -> str:
    turn, status, winner, line = fields
    winner_text = None if winner is None else winner.value
    return f"turn={turn.value}, status={status.value}, winner={winner_text}, winning_line={line}"


def _result(state: State) -> str:
    return "draw" if state.winner is None else f"{state.winner.value} won"
