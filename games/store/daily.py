"""A daily copy's result written when its game ends (docs/contracts.md, "The daily board").

`games.rooms.playing.record` calls `record_end` in the transaction that commits the game's end,
whichever door the last move came through; it lives down here, beside the rows it writes, so
the write path needs nothing of `games.rooms.daily`, which deals copies through the write path.
"""

from typing import Any

from django.db.models import Q

from ..engine import minesweeper as engine
from ..engine.stats import rounded, solved_three_bv
from .models import DailyResult, Game, Player, Room

DAILY = "daily"
"""The key of a daily copy's room settings (and so of its games' params): the day, ISO."""


def is_daily(params: dict[str, Any]) -> bool:
    return bool(params.get(DAILY))


def record_end(game: Game) -> bool:
    """The figures of `game`, a daily copy just over, on its counted attempt; whether a row took
    them. Nothing for a copy that does not count, a later game of the room, or an end already
    recorded (the end written twice by a retry records once: only a row not yet ended takes
    it)."""
    figures = _figures(game)
    room = Room.objects.filter(pk=game.room_id).values_list("hints_used", flat=True).first()
    seats = Player.objects.filter(room_id=game.room_id, role=Player.Role.PLAYER).count()
    assisted = bool(room) or seats > 1 or bool(game.params.get("bot"))
    updated = DailyResult.objects.filter(Q(game_id=game.pk) & Q(ended_at__isnull=True)).update(
        ended_at=game.finished_at, assisted=assisted, **figures
    )
    return updated == 1


def _figures(game: Game) -> dict[str, Any]:
    """Won, time, 3BV and 3BV/s as the records count them (`GameSummary.bv_per_s`): the time
    from the first reveal (the deal's opening) to the last move; a lost game is judged on the
    3BV it solved."""
    board = engine.from_dict(game.state)
    field = board.field
    assert field is not None and game.started_at is not None and game.finished_at is not None
    time_ms = round((game.finished_at - game.started_at).total_seconds() * 1000)
    solved = solved_three_bv(board.grid, field, board.revealed)
    return {
        "won": board.status is engine.Status.WON,
        "time_ms": time_ms,
        "three_bv": engine.three_bv(board.grid, field),
        "three_bv_per_s": rounded(solved / (time_ms / 1000)) if time_ms else None,
    }
