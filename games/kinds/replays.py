"""What a replay shows, whatever the kind: a board as one character per cell, and per move the
cells it changed.

A kind that can be replayed offers `Replays` in its table (`GameKind.replays`); the replay page,
the room's history, the records and the API ask it for a `Timeline` and know nothing else of
the kind. The timeline is rebuilt from the game's seed and its move log with the kind's engine
(the log is the source of truth), and holds only what the players could see at each point:
before a game ends there is no mine in it, and its statistics leave out what would tell where
the mines are (3BV, right and wrong flags).

Positions are sent to the browser as per-move diffs of the public board (`Step.cells` and
`Step.chars`): the page applies them in order once, after which any position is a lookup.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from ..store.models import Game, Move

TICK = "tick"
"""A timed event of kinds with a clock (`Move.action`): no player's move, so neither the
Minesweeper nor the tic-tac-toe replay shows it or counts it."""


MINESWEEPER_LEGEND: dict[str, dict[str, str]] = {
    "#": {"data-state": "hidden"},
    "F": {"data-state": "flagged"},
    "*": {"data-state": "mine"},
    "!": {"data-state": "exploded"},
    "X": {"data-state": "wrong-flag"},
    "_": {"data-state": "revealed", "data-count": "0"},
    **{
        str(n): {"data-state": "revealed", "data-count": str(n), "text": str(n)}
        for n in range(1, 9)
    },
}
"""A Minesweeper board's public characters (`stats.Replay.position`, and a racer's
`rules.board_rows`) as the room page's cell markup: Minesweeper's and the race's replays."""
OPEN_CHARS = frozenset("_12345678")
"""The characters of an opened cell, in that board."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sat in a seat, as a replay names them."""

    name: str
    colour: str
    """The CSS colour class's suffix: a palette index ("0".."7") or "bot"."""


@dataclass(frozen=True, slots=True)
class Step:
    """One move of the log and what it changed on the public board."""

    seq: int
    seat: int
    at_ms: int | None
    """Milliseconds since the game's first move; None when the log has no time for it."""
    action: str
    target: int | None
    """The cell the move was aimed at (outlined in the mover's colour), None for none."""
    cells: tuple[int, ...]
    chars: str
    """The new character of each of `cells`, in order."""
    line: str
    """What the move did, after the mover's name: "revealed 14 cells"."""
    logged: int | None = None
    """The `Move.seq` of the row this step replays, where the row alone cannot say who moved:
    a two-sided game logs both sides' computers as one `COMPUTER_SEAT`, and only the replay
    knows whose turn it was. The API's move log credits the row by it (`history.game_view`)."""
    side: str | None = None
    """The side that moved ("X" or "O") in a two-sided game."""


@dataclass(frozen=True, slots=True)
class Part:
    """One of several boards a timeline holds side by side (a race: one per racer), each of the
    timeline's width and height, its cells from `offset` on in the timeline's board."""

    seat: int
    offset: int


@dataclass(frozen=True, slots=True)
class Timeline:
    """Every position of one game, from before its first move to after its last.

    `start` and each step's diff are the public board; the last position of a finished game is
    the board as the game's end showed it (every mine, the exploded one, wrong flags), as it was
    broadcast then. `mines` is empty until the game is over.
    """

    width: int
    height: int
    ids: tuple[str, ...]
    """Each cell's element id, as the room page names it (`cell-X-Y`, `square-N`)."""
    legend: Mapping[str, Mapping[str, str]]
    """Per board character, the attributes its cell takes (`data-state`, `data-count`,
    `data-mark`) and its text (`text`)."""
    start: str
    steps: tuple[Step, ...]
    status: str
    over: bool
    mines: tuple[int, ...] = ()
    exploded: int | None = None
    """The cell of the mine that ended a lost game."""
    stats: Mapping[str, Any] = field(default_factory=dict)
    seats: Mapping[int, Seat] = field(default_factory=dict)
    parts: tuple[Part, ...] = ()
    """The boards side by side, when there are several; () for one board."""
    withheld: str = ""
    """Why no position of the game is shown yet (a race under way: every board shows where
    mines are), or "" when the timeline holds them all."""
    read_to: int = 0
    """The `Move.seq` of the last log row read (ticks included)."""
    resume: Any = None
    """What the kind needs to append later moves (`Replays.extend`), or None; the shell never
    looks inside."""

    @property
    def moves(self) -> int:
        return len(self.steps)

    def board_at(self, k: int) -> str:
        """The board after `k` moves, one character per cell, as it was broadcast then."""
        if not 0 <= k <= self.moves:
            raise IndexError(f"move {k} is outside 0..{self.moves}")
        board = list(self.start)
        for step in self.steps[:k]:
            for cell, char in zip(step.cells, step.chars, strict=True):
                board[cell] = char
        return "".join(board)

    def rows_at(self, k: int) -> list[str]:
        board = self.board_at(k)
        return [board[start : start + self.width] for start in range(0, len(board), self.width)]

    def seat(self, seat: int) -> Seat:
        return self.seats.get(seat) or Seat(f"Seat {seat + 1}", str(seat % 8))


class Page(Enum):
    """Where the link leads, which decides the title's last words."""

    ROOM = "join"
    WATCH = "watch"
    REPLAY = "replay"


@dataclass(frozen=True, slots=True)
class Words:
    title: str
    description: str


@dataclass(frozen=True, slots=True)
class Replays:
    """A kind whose games replay (`GameKind.replays`)."""

    timeline: Callable[[Game, Sequence[Move], Mapping[int, Seat]], Timeline]
    """(game, its moves in order, who sat where) -> every position and the statistics."""
    board_class: str
    """The CSS class of the replay page's board ("board" or "ttt-board")."""
    cell_class: str
    stats_template: str
    """The partial that shows `Timeline.stats` (its players named: `named_stats`)."""
    results_template: str = ""
    """A wide table shown under the board (a race's results), or "" for none."""
    records: str = ""
    """The heading of this kind's tables on the records page ("Co-op teams"), or "" when its
    wins make no records (no preset boards, no time to beat)."""
    record_holder: str = "Team"
    """What the records' table calls who won: "Team", or "Winner" of a race."""
    extend: Callable[[Timeline, Game, Sequence[Move], Mapping[int, Seat]], Timeline] | None = None
    """(a kept timeline with its `resume`, the game, the log rows after its `read_to`, who sat
    where) -> the timeline with those moves appended, as `timeline` would build it from the
    whole log; None: this kind's timelines are always built whole (its games stay short)."""
    withholds: Callable[[Game], bool] | None = None
    """Whether `game` as it stands shows no position at all (a race under way: `timeline` then
    says why, from an empty log): its timeline is then made without reading the log, so a page
    of a race of thousands of moves costs what one of ten does (issue 33). None: never."""
    link_words: "Callable[[Timeline, Mapping[str, Any], Page], Words] | None" = None
    """(timeline, the room's settings and the game's params, state and status, the page) -> what
    a chat app shows for a link to the game (`games.kinds.preview_words`); None: plain words."""


def named_stats(stats: Mapping[str, Any], seat: Callable[[int], Seat]) -> dict[str, Any]:
    """`stats` with each player's name and colour, for templates and the API (a copy: a kept
    timeline's figures stay as they are)."""
    players = [
        {**player, "name": seat(player["seat"]).name, "colour": seat(player["seat"]).colour}
        for player in stats.get("players", ())
    ]
    return {**stats, "players": players}


def diff(before: str, after: str) -> tuple[tuple[int, ...], str]:
    """The cells whose character changed, and their new characters."""
    cells = tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
    return cells, "".join(after[i] for i in cells)


def times_ms(moves: Iterable[Move], first: datetime | None = None) -> list[int | None]:
    """Each move's time in milliseconds since the first move's (the log keeps microseconds);
    `first`: that first move's time, when `moves` are later rows of the log."""
    stamps = [move.created_at for move in moves]
    if not stamps or any(stamp is None for stamp in stamps):
        return [None] * len(stamps)
    first = first or stamps[0]
    return [round((stamp - first).total_seconds() * 1000) for stamp in stamps]


def clock(ms: int | None) -> str:
    """A time in a game as the timeline shows it: 0:12.40 (minutes, seconds, hundredths)."""
    if ms is None:
        return ""
    minutes, rest = divmod(ms // 10, 6000)
    return f"{minutes}:{rest // 100:02d}.{rest % 100:02d}"
