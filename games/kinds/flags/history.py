"""A Flags game's replay, move by move, from its seed and move log.

The mines come from the seed (`engine.new_game`), and each logged reveal or bomb is played again
for the side to move, as it was when it was played; a `tick` (the turn timer ran out) passes the
turn and shows nothing. Before the game ends the board is the public one; its last position shows
the mines nobody claimed, as the room showed them.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import flags as engine
from games.engine.stats import seconds

from ...store.models import Game, Move
from ..replays import (
    TICK,
    Replays,
    Seat,
    Step,
    Timeline,
    diff,
    times_ms,
)
from ..seats_away import CLAIM, NO_MOVES
from ..side_pages import side_seats, winner_name
from ..table import credited_seat
from . import preview, rules

LEGEND: dict[str, dict[str, str]] = {
    "#": {"data-state": "hidden"},
    "_": {"data-state": "revealed", "data-count": "0"},
    **{
        str(n): {"data-state": "revealed", "data-count": str(n), "text": str(n)}
        for n in range(1, 9)
    },
    "x": {"data-state": "claimed", "data-seat": "X"},
    "o": {"data-state": "claimed", "data-seat": "O"},
    "*": {"data-state": "mine"},
}
"""A cell's character as the replay board's markup (`*`: a mine nobody claimed, at the end)."""


def chars(board: engine.State) -> str:
    """The board as the room showed it: the public one, and every mine once the game is over."""
    over = board.status is not engine.Status.PLAYING
    text = engine.render_full(board) if over else engine.render(board)
    return text.replace("\n", "")


def timeline(game: Game, moves: Sequence[Move], seats: Mapping[int, Seat]) -> Timeline:
    board = engine.new_game(rules.config(game.params), game.seed)
    sides = rules.sides(game.params)
    named = side_seats(seats, sides)
    start = previous = chars(board)
    steps: list[Step] = []
    counts: dict[int, dict[str, int]] = {}
    for move, at_ms in zip(moves, times_ms(moves), strict=True):
        if move.action == TICK:
            board, _ = engine.time_out(board)
            continue
        if move.action in NO_MOVES:
            continue
        if move.action == CLAIM:  # the claimer's opponent left: a forfeit, no cell changes
            side = rules.side_of_seat(game.params, move.seat)
            assert side is not None  # only a side's player may claim (`seats_away`)
            board, _ = engine.forfeit(board, side.mark.other)
            continue
        mark = board.turn
        played = engine.Move(engine.Action(move.action), move.x, move.y, mark)
        board, events = engine.apply_move(board, played)
        now = chars(board)
        cells, changed = diff(previous, now)
        previous = now
        claimed = sum(isinstance(event, engine.MineClaimed) for event in events)
        target = board.grid.index(move.x, move.y)
        seat = credited_seat(move.seat, mark.value)
        steps.append(
            Step(
                len(steps) + 1,
                seat,
                at_ms,
                move.action,
                target,
                cells,
                changed,
                describe(board, played, claimed, events),
                logged=move.seq,
                side=mark.value,
            )
        )
        mine = counts.setdefault(seat, {"moves": 0, "mines": 0})
        mine["moves"] += 1
        mine["mines"] += claimed
    return Timeline(
        width=board.config.width,
        height=board.config.height,
        ids=tuple(
            f"cell-{x}-{y}" for y in range(board.config.height) for x in range(board.config.width)
        ),
        legend=LEGEND,
        start=start,
        steps=tuple(steps),
        status=board.status.value,
        over=board.status is not engine.Status.PLAYING,
        mines=tuple(sorted(board.field.mines)) if board.status is not engine.Status.PLAYING else (),
        stats=stats(board, steps, counts)
        | {"winner_name": winner_name(named, sides, board.winner)},
        seats=named,
    )


def describe(
    board: engine.State, move: engine.Move, claimed: int, events: tuple[engine.Event, ...]
) -> str:
    """What the move did, after the mover's name."""
    where = f"row {move.y + 1}, column {move.x + 1}"
    opened = sum(len(e.cells) for e in events if isinstance(e, engine.CellsRevealed))
    if move.action is engine.Action.BOMB:
        line = f"bombed around {where}: {claimed} mine{'s' if claimed != 1 else ''} claimed"
    elif claimed:
        line = f"claimed a mine at {where}"
    else:
        line = f"opened {opened} cell{'s' if opened != 1 else ''} at {where}"
    if board.winner is not None:
        line += f": {board.winner.value} wins {board.score(board.winner)} to "
        line += str(board.score(board.winner.other))
    return line


def stats(
    board: engine.State, steps: Sequence[Step], counts: Mapping[int, Mapping[str, int]]
) -> dict[str, Any]:
    last = steps[-1].at_ms if steps else None
    return {
        "time_ms": last,
        "time_s": seconds(last),
        "moves": len(steps),
        "winner": None if board.winner is None else board.winner.value,
        "scores": {mark.value: board.score(mark) for mark in engine.Seat},
        "players": [{"seat": seat, **n} for seat, n in sorted(counts.items())],
    }


REPLAYS = Replays(
    timeline=timeline,
    board_class="board flags-board",
    cell_class="cell",
    stats_template="games/flags_stats.html#flags",
    link_words=preview.words,
)
