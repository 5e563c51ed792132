"""A tic-tac-toe game's replay, move by move, from its move log.

X always opens and the marks alternate, so each logged square takes the mark whose turn it is;
the engine checks every move again, as it did when it was played. The winning line shows at the
last position with `data-win`, as the room showed it.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import tictactoe as engine
from games.engine.stats import seconds

from ...store.models import Game, Move
from ..replays import (
    Replays,
    Seat,
    Step,
    Timeline,
    times_ms,
)
from ..seats_away import CLAIM
from ..side_pages import side_seats, winner_name
from ..table import credited_seat
from . import preview, rules

LEGEND: dict[str, dict[str, str]] = {
    ".": {"data-mark": ""},
    "X": {"data-mark": "X", "text": "X"},
    "O": {"data-mark": "O", "text": "O"},
    "x": {"data-mark": "X", "data-win": "true", "text": "X"},
    "o": {"data-mark": "O", "data-win": "true", "text": "O"},
}
"""A square's character as the replay board's markup; lower case marks the winning line."""


def timeline(game: Game, moves: Sequence[Move], seats: Mapping[int, Seat]) -> Timeline:
    played = [move for move in moves if move.cell is not None or move.action == CLAIM]
    board = engine.new_game()
    start = "".join(engine.rows(board))
    previous = start
    steps: list[Step] = []
    counts: dict[int, int] = {}
    for move, at_ms in zip(played, times_ms(played), strict=True):
        if move.action == CLAIM:
            board, step = _claimed(board, game, move, len(steps) + 1, at_ms)
            steps.append(step)
            continue
        mark = board.turn
        board, _ = engine.apply_move(board, engine.Move(move.cell, mark))
        now = _chars(board)
        cells = tuple(i for i in range(engine.SIZE) if now[i] != previous[i])
        chars = "".join(now[i] for i in cells)
        row, column = divmod(move.cell, 3)
        line = f"placed {mark.value} in row {row + 1}, column {column + 1}"
        if board.status is engine.Status.WON:
            line += f": {mark.value} wins"
        elif board.status is engine.Status.DRAW:
            line += ": a draw"
        seat = credited_seat(move.seat, mark.value)
        steps.append(
            Step(
                len(steps) + 1,
                seat,
                at_ms,
                "mark",
                move.cell,
                cells,
                chars,
                line,
                move.seq,
                mark.value,
            )
        )
        counts[seat] = counts.get(seat, 0) + 1
        previous = now
    times = [step.at_ms for step in steps]
    sides = rules.sides(game.params)
    names = side_seats(seats, sides)
    stats: dict[str, Any] = {
        "time_ms": times[-1] if times and times[-1] is not None else None,
        "time_s": seconds(times[-1]) if times else None,
        "moves": sum(counts.values()),  # marks placed: a claimed win is no move on the board
        "winner": None if board.winner is None else board.winner.value,
        "winner_name": winner_name(names, sides, board.winner),
        "players": [{"seat": seat, "moves": n} for seat, n in sorted(counts.items())],
    }
    return Timeline(
        width=3,
        height=3,
        ids=tuple(f"square-{n}" for n in range(engine.SIZE)),
        legend=LEGEND,
        start=start,
        steps=tuple(steps),
        status=board.status.value,
        over=board.status is not engine.Status.PLAYING,
        stats=stats,
        seats=names,
    )


def _claimed(
    board: engine.State, game: Game, move: Move, seq: int, at_ms: int | None
) -> tuple[engine.State, Step]:
    """The claimer's opponent forfeits: the step names who left and who won."""
    side = rules.side_of_seat(game.params, move.seat)
    assert side is not None  # only a side's player may claim (`seats_away.claim_win`)
    board, _ = engine.forfeit(board, side.mark.other)
    line = f"claimed the win: {side.mark.other.value} left, {side.mark.value} wins"
    step = Step(seq, move.seat, at_ms, CLAIM, None, (), "", line, move.seq, side.mark.value)
    return board, step


def _chars(board: engine.State) -> str:
    text = "".join(engine.rows(board))
    if board.winning_line is None:
        return text
    return "".join(c.lower() if i in board.winning_line else c for i, c in enumerate(text))


REPLAYS = Replays(
    timeline=timeline,
    board_class="ttt-board",
    cell_class="square",
    stats_template="games/tictactoe_stats.html#tictactoe",
    link_words=preview.words,
)
