"""A Minesweeper game's replay and statistics, from its seed and move log (`engine.stats`).

The shell's `Move` rows become the engine's `LoggedMove`s here; `timeline` gives the replay page,
the API and the room's history what they show. `end_stats` is what the banner of a finished
game shows: worked out once per game inside the move's transaction (`render.gather`) and kept,
so rendering the banner afterwards queries nothing.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from cachetools import LRUCache

from games.engine import minesweeper as engine
from games.engine import stats as engine_stats

from ...store.models import Game, Move
from ..replays import (
    MINESWEEPER_LEGEND,
    OPEN_CHARS,
    TICK,
    Replays,
    Seat,
    Step,
    Timeline,
    named_stats,
    times_ms,
)
from . import preview, rules

_MINES = frozenset("*!F")
"""At the end of a game every mine shows: flagged (a win flags them all), `*` or `!`."""
BOT_SEAT = Seat(rules.BOT_NAME, "bot")
STATS_KEPT = 256
"""Finished games whose banner statistics are kept per process (a few hundred bytes each)."""
_kept: LRUCache[tuple[int, int, int], dict[str, Any]] = LRUCache(STATS_KEPT)


def logged(moves: Sequence[Move], first: datetime | None = None) -> list[engine_stats.LoggedMove]:
    """The log as the engine replays it: people's and the Solver bot's moves, without ticks
    (`first`: the game's first move's time, when `moves` are later rows)."""
    played = [move for move in moves if move.action != TICK]
    return [
        engine_stats.LoggedMove(move.seat, move.action, move.x, move.y, at_ms)
        for move, at_ms in zip(played, times_ms(played, first), strict=True)
    ]


def board_name(params: Mapping[str, Any]) -> str:
    """The records' board: a preset's name for a co-op game on one, else "" (custom)."""
    if params.get("mode", "coop") != "coop":
        return ""
    size = {key: params.get(key) for key in ("width", "height", "mines")}
    return next((name for name, preset in rules.PRESETS.items() if preset == size), "")


def _shown(game: Game, figures: engine_stats.GameStats) -> dict[str, Any]:
    """The game's figures by seat (docs/contracts.md, "Statistics"); before its end, only those
    that say nothing of the mines: time so far, clicks and cells revealed, never 3BV or flags."""
    over = figures.status is not engine.Status.PLAYING
    players = []
    for p in figures.players:
        player: dict[str, Any] = {
            "seat": p.seat,
            "clicks": p.clicks,
            "cells_revealed": p.cells_revealed,
        }
        if over:
            player |= {"right_flags": p.right_flags, "wrong_flags": p.wrong_flags}
            player["hit_mine"] = p.hit_mine
        players.append(player)
    result: dict[str, Any] = {
        "board": board_name(game.params),
        "no_guess": bool(game.params.get("no_guess")),
        "time_ms": figures.time_ms,
        "time_s": figures.time_s,
        "clicks": figures.clicks,
        "players": players,
    }
    if over:
        result |= {
            "three_bv": figures.three_bv,
            "solved_three_bv": figures.solved_three_bv,
            "bv_per_s": _rounded(figures.bv_per_s),
            "ioe": _rounded(figures.ioe),
            "hit_by": figures.hit_by,
        }
    return result


def _rounded(figure: float | None) -> float | None:
    """A ratio as the API reports it: the digits every page shows (`engine_stats.rounded`)."""
    return None if figure is None else engine_stats.rounded(figure)


@dataclass(frozen=True, slots=True)
class _Resume:
    """Where a timeline of a game under way stopped (`Timeline.resume`), so later moves are
    appended (`extend`) rather than the whole log replayed: a game of 4,700 moves cost about
    0.4 s to rebuild after each move (issue 26)."""

    state: engine.GameState
    tally: engine_stats.Tally
    first: datetime | None
    """The game's first move's time, from which every move's time counts."""


def timeline(game: Game, moves: Sequence[Move], seats: Mapping[int, Seat]) -> Timeline:
    """Every position of the game as it was broadcast, with the statistics."""
    state = engine.new_game(rules.config(game.params), game.seed)
    start = engine_stats.replay_from(state, ()).position(0).decode()
    return _appended(game, _Resume(state, engine_stats.Tally(state), None), start, (), moves, seats)


def extend(
    kept: Timeline, game: Game, moves: Sequence[Move], seats: Mapping[int, Seat]
) -> Timeline:
    """`kept` with the log rows after it appended: the same timeline `timeline` builds."""
    resume = kept.resume
    assert isinstance(resume, _Resume), "only a game under way's timeline is extended"
    appended = _appended(game, resume, kept.start, kept.steps, moves, seats)
    return appended if moves else replace(appended, read_to=kept.read_to)


def _appended(
    game: Game,
    resume: _Resume,
    start: str,
    before: Sequence[Step],
    moves: Sequence[Move],
    seats: Mapping[int, Seat],
) -> Timeline:
    """The timeline whose first `before` steps led to `resume`, with `moves` played after."""
    config = rules.config(game.params)
    first = resume.first or next((m.created_at for m in moves if m.action != TICK), None)
    log = logged(moves, first)
    played = engine_stats.replay_from(resume.state, log)
    tally = resume.tally.add(log)
    over = played.status is not engine.Status.PLAYING
    width = config.width
    steps = list(before)
    for k, move in enumerate(log):
        change = played.diffs[k]  # what the move opened, flagged or unflagged
        cells, chars = change.cells, change.chars.decode()
        last = over and k == len(log) - 1
        if last:  # and what the game's end uncovered, as the room saw it then
            cells, chars = cells + played.ending.cells, chars + played.ending.chars.decode()
        action = engine.Action(move.action).value
        line = _line(move, chars, last, played.status)
        target = move.x + move.y * width
        steps.append(
            Step(len(steps) + 1, move.seat, move.at_ms, action, target, cells, chars, line)
        )
    final = played.position(played.moves, show_mines=over).decode()
    assert played.state is not None
    return Timeline(
        width=width,
        height=config.height,
        ids=tuple(f"cell-{c % width}-{c // width}" for c in range(config.width * config.height)),
        legend=MINESWEEPER_LEGEND,
        start=start,
        steps=tuple(steps),
        status=played.status.value,
        over=over,
        mines=tuple(c for c, char in enumerate(final) if char in _MINES) if over else (),
        exploded=final.find("!") if "!" in final else None,
        stats=_shown(game, tally.stats()),
        seats={**seats, rules.COMPUTER_SEAT: BOT_SEAT},
        read_to=moves[-1].seq if moves else 0,
        resume=None if over else _Resume(played.state, tally, first),
    )


def _line(
    move: engine_stats.LoggedMove,
    chars: str,
    last: bool,
    status: engine.Status,
) -> str:
    where = f"row {move.y + 1}, column {move.x + 1}"
    if last and status is engine.Status.LOST:
        return f"hit a mine at {where}"
    opened = sum(1 for char in chars if char in OPEN_CHARS)
    if last and status is engine.Status.WON:
        return f"revealed {opened} cell{'s' if opened != 1 else ''} and cleared the board"
    action = engine.Action(move.action)
    if action is engine.Action.FLAG:
        return f"flagged {where}" if "F" in chars else f"removed the flag at {where}"
    cells_word = f"{opened} cell{'s' if opened != 1 else ''}"
    if action is engine.Action.CHORD:
        return f"chorded {where}: {cells_word}"
    return f"revealed {cells_word}"


def end_stats(game: Game, board: engine.GameState | None = None) -> dict[str, Any] | None:
    """The statistics of a finished game for its banner; None while it is played. Read from the
    move log and the game's end (`board`: the state the last move left, when the caller holds
    it) once per game and version, then kept."""
    if game.status == Game.Status.PLAYING or game.pk is None:
        return None
    key = (game.pk, game.version, game.seed)  # the seed: a reset database reuses ids
    kept = _kept.get(key)
    if kept is None:
        moves = logged(list(Move.objects.filter(game_id=game.pk).order_by("seq")))
        start = engine.new_game(rules.config(game.params), game.seed)
        end = board if board is not None else engine.from_dict(game.state)
        kept = _shown(game, engine_stats.stats_at_end(start, end, moves))
        _kept[key] = kept
    return kept


REPLAYS = Replays(
    timeline=timeline,
    extend=extend,
    board_class="board",
    cell_class="cell",
    stats_template="games/minesweeper_stats.html#minesweeper",
    records="Co-op teams",
    link_words=preview.words,
)


def banner_stats(game: Game, players: Mapping[int, Any]) -> dict[str, Any] | None:
    """`end_stats` with each player's nickname and colour (`players`: seat -> Player or the
    bot), as the banner shows them."""
    figures = end_stats(game)
    if figures is None:
        return None

    def seat(number: int) -> Seat:
        player = players.get(number)
        if player is None:
            return Seat(f"Seat {number + 1}", str(number % 8))
        return Seat(player.nickname, str(player.colour))

    return named_stats(figures, seat)
