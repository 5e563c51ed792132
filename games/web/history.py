"""Past games: replays, a room's history, the records and the API's game view (issue 16).

Everything here is read from the move log through the kind's `Replays` (`games.kinds.replays`):
the log is the source of truth, and a finished game's figures are written once to a
`GameSummary` row the first time anyone asks (the room's history, the records, a replay), so
those lists read rows instead of replaying games. Summaries are derived data: no move waits on
them, and deleting them loses nothing.

A game's timeline at one version never changes, so the last few are kept per process (a game
under way's until its next move): scrubbing a replay (`?move=N`) or opening it from several
screens replays the log once.
"""

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from cachetools import LRUCache
from django.core.cache import cache
from django.db.models import QuerySet

from ..kinds import KINDS
from ..kinds.replays import Seat, Timeline, named_stats
from ..kinds.table import COMPUTER_SEAT
from ..store import daily
from ..store.models import Game, GameSummary, Move, Room

HISTORY_SHOWN = 20
"""Past games a room page lists, newest first."""
RECORDS_SHOWN = 20
"""Entries per records table."""
SUMMARIES_PER_REQUEST = 200
"""Finished games summarised by one request at most, so a page never replays without bound;
whatever is left is summarised by the next ones."""
TIMELINES_KEPT = 32
"""Games' timelines kept per process, one version per game (an expert game of 500 moves is about
100 kB; one of 4,700 flag toggles about 1 MB)."""
GAME_VIEW_SECONDS = 600
"""How long the API's view of one game version stays in the cache: a version never changes, so
this only bounds what old versions hold (a 4,700-move view is about 300 kB)."""
MOVES_PER_PAGE = 500
"""Logged moves in one answer of the API's game view at most: a game of 4,700 moves listed whole
was about 300 kB and 80-350 ms a request (issue 26); the rest are a `next` away."""
RECORD_BOARDS = (
    ("beginner", "Beginner", "9×9, 10 mines"),
    ("intermediate", "Intermediate", "16×16, 40 mines"),
    ("expert", "Expert", "30×16, 99 mines"),
)
RECORD_MIN_MS = 5
"""A win shown as 0.00 s (one click cleared the board) says nothing about speed: no record."""

_timelines: LRUCache[int, tuple[int, int, Timeline]] = LRUCache(TIMELINES_KEPT)
"""Per game id, one version's timeline: (version, seed, timeline)."""
_logs: LRUCache[tuple[int, int], tuple[list[dict[str, Any]], datetime | None]] = LRUCache(
    TIMELINES_KEPT
)
"""The API's move log of the last few games, and their first move's time (`api_log`)."""


def replayable(room: Room) -> bool:
    kind = KINDS.get(room.kind)
    return kind is not None and kind.replays is not None


def seats_of(room: Room) -> dict[int, Seat]:
    """Every seat of the room by number: nickname and colour index."""
    return {p.number: Seat(p.nickname, str(p.colour)) for p in room.players.all()}


def moves_of(game: Game, after: int = 0) -> list[Move]:
    """The game's log rows in order, those after `Move.seq` `after` only."""
    return list(
        Move.objects.filter(game_id=game.pk, seq__gt=after)
        .order_by("seq")
        .only("seq", "seat", "action", "x", "y", "cell", "created_at")
    )


def timeline_of(room: Room, game: Game) -> Timeline | None:
    """Every position of `game` as its room saw it; None when the kind has no replays.

    Kept per (game, version): a finished game's for good, a game under way's until its next
    move, so clients looking at a long game at once share one build (issue 26: a game of 4,700
    moves cost about 300 ms a view, rebuilt on every request)."""
    kind = KINDS.get(room.kind)
    replays = None if kind is None else kind.replays
    if replays is None:
        return None
    kept = _timelines.get(game.pk)
    if kept is not None and kept[:2] == (game.version, game.seed):  # the seed: ids come again
        return kept[2]
    earlier = (
        kept[2] if kept is not None and kept[1] == game.seed and kept[0] < game.version else None
    )
    if replays.withholds is not None and replays.withholds(game):
        timeline = replays.timeline(game, (), seats_of(room))  # nothing shown: no log read
    elif earlier is not None and earlier.resume is not None and replays.extend is not None:
        # An earlier version of this game still under way takes the moves after it: the first
        # view after each move of a long game reads and replays those moves only.
        timeline = replays.extend(
            earlier, game, moves_of(game, after=earlier.read_to), seats_of(room)
        )
    else:
        timeline = replays.timeline(game, moves_of(game), seats_of(room))
    _timelines[game.pk] = (game.version, game.seed, timeline)  # in place of an earlier version
    return timeline


def costly(room: Room, game: Game) -> bool:
    """Whether `timeline_of` would replay the game's whole log: no process-kept timeline of
    this version, nor of an earlier one to extend. What a client can make the server do that
    grows with the game, and so what is counted per address (`room_limit.too_many_builds`)."""
    kind = KINDS.get(room.kind)
    if kind is None or kind.replays is None:
        return False
    if kind.replays.withholds is not None and kind.replays.withholds(game):
        return False
    kept = _timelines.get(game.pk)
    if kept is None or kept[1] != game.seed:
        return True
    version, _, timeline = kept
    if version == game.version:
        return False
    return kind.replays.extend is None or version > game.version or timeline.resume is None


def view_costly(room: Room, game: Game) -> bool:
    """Whether `game_view` would build the view: not in the shared cache, and `costly`."""
    return costly(room, game) and _view_key(room, game) not in cache


def forget_timelines() -> None:
    """Tests start from a flushed database, where ids come again."""
    _timelines.clear()
    _logs.clear()


def _summary(game: Game, timeline: Timeline) -> GameSummary:
    stats = dict(timeline.stats)
    seats = [player["seat"] for player in stats.get("players", ())]
    # Records are people's: not a co-op game the Solver bot helped in, nor a race it won; a
    # person who beat it in a race keeps their time, which is all their own.
    with_bot = stats["winner"] == COMPUTER_SEAT if "winner" in stats else COMPUTER_SEAT in seats
    return GameSummary(
        game=game,
        status=timeline.status,
        kind=game.room.kind,
        with_bot=with_bot,
        # A daily copy is no record: its layout is everyone's, and copies after the counted
        # attempt may be played knowing it (docs/contracts.md, "The daily board").
        board="" if daily.is_daily(game.params) else stats.get("board", ""),
        no_guess=bool(stats.get("no_guess")),
        time_ms=stats.get("time_ms"),
        three_bv=stats.get("three_bv"),
        clicks=stats.get("clicks") or stats.get("moves") or 0,
        players=[timeline.seat(seat).name for seat in seats],
        stats=stats,
        finished_at=game.finished_at,
    )


def summaries(games: Iterable[Game]) -> dict[int, GameSummary]:
    """The summaries of these finished games by game id, the missing ones worked out now (at
    most `SUMMARIES_PER_REQUEST`). Games with their `room` and its `players` prefetched cost no
    query each beyond their move log."""
    finished = [game for game in games if game.is_over]
    found = {s.game_id: s for s in GameSummary.objects.filter(game__in=[g.pk for g in finished])}
    made: list[GameSummary] = []
    for game in finished:
        if game.pk in found or len(made) >= SUMMARIES_PER_REQUEST:
            continue
        timeline = timeline_of(game.room, game)
        if timeline is None or not timeline.over:
            continue  # no replays for this kind, or the log is behind the game row
        made.append(_summary(game, timeline))
    GameSummary.objects.bulk_create(made, ignore_conflicts=True)  # another request may race
    found.update((summary.game_id, summary) for summary in made)
    return found


@dataclass(frozen=True, slots=True)
class PastGame:
    game: Game
    summary: GameSummary | None


def room_history(room: Room, limit: int = HISTORY_SHOWN) -> list[PastGame]:
    """The room's finished games, newest first, with their figures."""
    if not replayable(room):
        return []
    games = list(room.games.exclude(status=Game.Status.PLAYING).order_by("-number")[:limit])
    for game in games:
        game.room = room  # the room's players are read once, not per game
    found = summaries(games)
    return [PastGame(game, found.get(game.pk)) for game in games]


@dataclass(frozen=True, slots=True)
class RecordTable:
    """One kind's best times on one board (co-op teams', race winners')."""

    kind: str
    heading: str
    holder: str
    """What the table calls who won: "Team" or "Winner"."""
    slug: str
    entries: list[GameSummary]


@dataclass(frozen=True, slots=True)
class RecordBoard:
    """A board's records, one table per kind with records, side by side."""

    board: str
    no_guess: bool
    title: str
    size: str
    tables: list[RecordTable]

    @property
    def slug(self) -> str:
        return self.board + ("-no-guess" if self.no_guess else "")


def _record_kinds() -> list[str]:
    return [name for name, kind in KINDS.items() if kind.replays and kind.replays.records]


def _unsummarised_wins() -> QuerySet[Game]:
    kinds = _record_kinds()
    return (
        Game.objects.filter(status=Game.Status.WON, room__kind__in=kinds, summary__isnull=True)
        .select_related("room")
        .prefetch_related("room__players")
        .order_by("finished_at")
    )


def records(limit: int = RECORDS_SHOWN) -> list[RecordBoard]:
    """The best times per preset board, no-guess boards apart, one table per kind with records
    (co-op teams, race winners). Only won games count (a race: someone finished), each once (one
    summary per game); not those the Solver bot played in (records are for people), nor a time
    shown as 0.00 s. Ties go to the earlier game."""
    summaries(_unsummarised_wins()[:SUMMARIES_PER_REQUEST])
    kinds = _record_kinds()
    boards = []
    for no_guess in (False, True):
        for board, title, size in RECORD_BOARDS:
            slug = board + ("-no-guess" if no_guess else "")
            tables = []
            for name in kinds:
                replays = KINDS[name].replays
                assert replays is not None
                entries = list(
                    GameSummary.objects.filter(
                        kind=name,
                        board=board,
                        no_guess=no_guess,
                        status=Game.Status.WON,
                        with_bot=False,
                        time_ms__gte=RECORD_MIN_MS,
                    )
                    .select_related("game__room")
                    .order_by("time_ms", "finished_at", "game_id")[:limit]
                )
                # The first kind keeps the board's own anchor (#beginner), as links had it.
                table_slug = slug if name == kinds[0] else f"{name}-{slug}"
                tables.append(
                    RecordTable(name, replays.records, replays.record_holder, table_slug, entries)
                )
            boards.append(RecordBoard(board, no_guess, title, size, tables))
    return boards


def game_view(room: Room, game: Game) -> dict[str, Any]:
    """The API's answer for one game (`_game_view`), made once per version and shared by every
    process through the cache: a long game's view read the whole log twice for every request,
    about 350 ms at 4,700 moves, and three clients asking kept Daphne busy (issue 26)."""
    return cache.get_or_set(
        _view_key(room, game), partial(_game_view, room, game), GAME_VIEW_SECONDS
    )


def _view_key(room: Room, game: Game) -> str:
    return f"game-view:{room.code}:{game.number}:{game.version}:{game.seed}"


def page_of(log: list[dict[str, Any]], after: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """The entries of an API log with a `seq` above `after`, at most `limit`, and whether more
    follow them."""
    start = bisect.bisect_right(log, after, key=lambda move: move["seq"])
    return log[start : start + limit], start + limit < len(log)


def api_log(game: Game) -> list[dict[str, Any]]:
    """The game's move log as the API lists it. The last few games' are kept per process and
    extended with the rows after them, so a long game's view after a move reads that move, not
    the whole log (issue 26)."""
    key = (game.pk, game.seed)
    kept = _logs.pop(key, None)  # put back below, as the most recently used
    log, first = kept if kept is not None else ([], None)
    moves = moves_of(game, after=log[-1]["seq"] if log else 0)
    first = first or (moves[0].created_at if moves else None)
    log = log + [
        {
            "seq": move.seq,
            "ms": None if first is None else round((move.created_at - first).total_seconds() * 1e3),
            "seat": move.seat,
            "action": move.action,
            **({"x": move.x, "y": move.y} if move.x is not None else {}),
            **({"cell": move.cell} if move.cell is not None else {}),
        }
        for move in moves
    ]
    _logs[key] = (log, first)
    return log


def credited(log: list[dict[str, Any]], timeline: Timeline) -> list[dict[str, Any]]:
    """The log with each move of a two-sided game crediting its side, and the side's computer
    as the statistics name it (`credited_seat`): the rows log both computers as one seat."""
    sides = {s.logged: (s.seat, s.side) for s in timeline.steps if s.logged is not None}
    if not sides:
        return log
    return [
        move | dict(zip(("seat", "side"), sides[move["seq"]], strict=True))
        if move["seq"] in sides
        else move
        for move in log
    ]


def _game_view(room: Room, game: Game) -> dict[str, Any]:
    """Its statistics, the move log and, once the game is over, where the mines were; before
    that only what every player sees."""
    timeline = timeline_of(room, game)
    kind = KINDS.get(room.kind)
    if kind is not None and kind.per_seat_boards is not None and not game.is_over:
        # A race under way: each racer's moves are theirs alone (flags would show the others
        # where mines are); the log is public once the race is over.
        log: list[dict[str, Any]] = []
    else:
        log = api_log(game)
    view: dict[str, Any] = {
        "game": room.kind,
        "number": game.number,
        "status": game.status,
        "version": game.version,
        "moves": log,
    }
    if timeline is None:
        return view
    if timeline.withheld:
        return view | {"width": timeline.width, "height": timeline.height}
    width = timeline.width
    size = width * timeline.height
    over = timeline.over
    stats = named_stats(timeline.stats, timeline.seat)
    rows = timeline.rows_at(timeline.moves)
    view |= {
        "moves": credited(log, timeline),
        "status": timeline.status,
        "width": width,
        "height": timeline.height,
        "stats": stats,
        "board": rows,
        # Several boards side by side (a race) share one layout: its mines are the first's.
        "mines": [[c % width, c // width] for c in timeline.mines if c < size] if over else None,
    }
    if timeline.parts:
        view["board"] = None
        view["boards"] = [
            {"seat": part.seat, "rows": rows[part.offset // width : (part.offset + size) // width]}
            for part in timeline.parts
        ]
    return view
