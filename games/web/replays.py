"""Pages for past games: a game's replay (also the rewind of the game under way), the records.

The replay page renders the board at the asked move on the server (`?move=N`, so a shared link
shows the same board without script) and sends, as JSON, the chunk of the timeline that holds
that move: the board where the chunk starts and each of its moves' diffs of the public board.
`static/games/replay.js` applies them to scrub, step and play, and fetches the other chunks
(`replay_chunk`) only when the viewer goes there: a game of 4,700 moves sent whole was a 1.3 MB
page for every viewer (issue 26). Nothing here sends more than the timeline holds: before a game
ends that is the public board only, never a mine.
"""

import bisect
import hashlib
import json
import re
import time
from typing import Any

from cachetools import LRUCache
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from ..kinds import kind_of
from ..kinds.replays import Page, Step, Timeline, clock, named_stats
from ..limits import Decision, headers
from ..store.models import ChatMessage, Game, Room
from . import history
from .preview_tags import tags
from .room_limit import too_many_builds
from .views import find_room, not_found, seat_of

SPEEDS = (0.5, 1, 2, 4, 8)
"""Playback speeds offered, times real time."""


CHUNK = 500
"""Moves per chunk of a timeline: what one page carries and one `replay_chunk` answer holds
(about 140 kB of entries and diffs for an expert board's flag toggles). Every finished game of
the bench's 500 moves fits one page whole, as before."""
FULL_CHUNK_SECONDS = 3600
"""How long a browser may reuse a chunk of a finished game without asking: it never changes.
A game under way's are asked again each time, and answered 304 while unchanged."""


class BadMove(ValueError):
    """A `?move=` that is not a position of the game."""


def position(request: HttpRequest, timeline: Timeline) -> int:
    """The asked move (`?move=N`), or the last one. A whole number past either end opens at that
    end: a link shared while the game was shorter, or typed by hand (`?move=999`), had answered
    400 (issue 35); only what is no whole number (`abc`, `1.5`) is refused (docs/api.md)."""
    raw = request.GET.get("move")
    if raw is None or raw == "":
        return timeline.moves
    if len(raw) > 20 or not re.fullmatch(r"-?[0-9]+", raw):
        raise BadMove(f"move must be a whole number from 0 to {timeline.moves}, not {raw[:20]!r}.")
    return min(max(int(raw), 0), timeline.moves)


def board_html(timeline: Timeline, k: int, cell_class: str) -> SafeString:
    """The board after `k` moves, its cells as the room page names them, the move's target
    outlined in the mover's colour. Written out here rather than by a template loop: an expert
    board is 480 cells, and the loop was most of the page's time (docs/performance.md)."""
    looks = {
        char: (
            "".join(f' {name}="{escape(value)}"' for name, value in look.items() if name != "text"),
            escape(look.get("text", "")),
        )
        for char, look in timeline.legend.items()
    }
    step = timeline.steps[k - 1] if k else None
    target = step.target if step is not None else None
    outline = "" if step is None else f' data-outline="{escape(timeline.seat(step.seat).colour)}"'
    parts = []
    board = timeline.board_at(k)
    for index, char in enumerate(board):
        attrs, text = looks[char]
        extra = outline if index == target else ""
        parts.append(
            f'<span class="{cell_class}" id="{timeline.ids[index]}"{attrs}{extra}>{text}</span>'
        )
    if not timeline.parts:
        return mark_safe("".join(parts))
    return _side_by_side(timeline, board, parts)


def _side_by_side(timeline: Timeline, board: str, cells: list[str]) -> SafeString:
    """Several boards (a race's racers), each in a card with its racer's name and how much of
    the board they had cleared at this point (replay.js keeps that figure as it scrubs)."""
    size = timeline.width * timeline.height
    cards = []
    for index, part in enumerate(timeline.parts):
        seat = timeline.seat(part.seat)
        mine = board[part.offset : part.offset + size]
        done = progress(mine, timeline.stats.get("mines", 0))
        cards.append(
            f'<section class="replay-part colour-{escape(seat.colour)}" data-part="{index}"'
            f' data-seat="{part.seat}" aria-label="{escape(seat.name)}">'
            f'<header class="replay-part-head"><span class="swatch" aria-hidden="true"></span>'
            f'<span class="name">{escape(seat.name)}</span><output class="replay-part-progress"'
            f' data-part="{index}">{done}%</output></header>'
            f'<div class="board" id="board-{part.seat}" data-progress="{done}">'
            f"{''.join(cells[part.offset : part.offset + size])}</div></section>"
        )
    return mark_safe("".join(cards))


def progress(board: str, mines: int) -> int:
    """Percent of a board's safe cells revealed, rounded down, as the race room shows it."""
    safe = len(board) - mines
    opened = sum(1 for char in board if char in "_12345678")
    return 100 * opened // safe if safe > 0 else 0


ENTRIES_KEPT = 8
"""Timelines whose entries are kept written out (`timeline_html`), per process."""
_entries: LRUCache[int, tuple[Timeline, list[str]]] = LRUCache(ENTRIES_KEPT)
CURRENT = ' aria-current="step"'


def chunk_of(k: int) -> int:
    """The first move of the chunk that shows position `k`: the one holding move `k` itself,
    whose diff and time the position shows (position 0, before any move, is the first's)."""
    return 0 if k == 0 else (k - 1) // CHUNK * CHUNK


def timeline_html(timeline: Timeline, k: int) -> SafeString:
    """One entry per move of the chunk showing `k` ("0:12.40 Ana revealed 14 cells"), each
    jumping to it; written out for the same reason as the board (500 moves, 500 entries), once
    per kept timeline: a long game under way is looked at by many at the same version."""
    first = chunk_of(k)
    parts = _entries_of(timeline)[first : first + CHUNK]
    if first < k:
        at = k - 1 - first
        parts = parts.copy()
        parts[at] = parts[at].replace('"><span class="when">', f'"{CURRENT}><span class="when">', 1)
    return mark_safe("".join(parts))


def chunk_note(first: int, moves: int) -> str:
    """What the list shows of a game longer than a chunk (`replay.js` writes the same)."""
    return f"Moves {first + 1}–{min(first + CHUNK, moves)} of {moves}; the list follows the board."


def chunk(timeline: Timeline, first: int) -> dict[str, Any]:
    """The moves `first`..`first + CHUNK` of the timeline: the board before them, each one's
    time, seat, target cell and diff, and their entries as `timeline_html` writes them."""
    steps = timeline.steps[first : first + CHUNK]
    return {
        "first": first,
        "board": timeline.board_at(first),
        "steps": [[step.at_ms, step.seat, step.target, step.cells, step.chars] for step in steps],
    }


def _entries_of(timeline: Timeline) -> list[str]:
    """Each step's entry, none of them current; kept for the last few timelines (the same
    object while `history` keeps the game's version). A timeline extended from a kept one (a
    game under way, a few moves on) writes out its new steps only."""
    kept = _entries.get(id(timeline))
    if kept is not None and kept[0] is timeline:
        return kept[1]
    earlier = _earlier_entries(timeline)
    parts = earlier + [_entry(timeline, step) for step in timeline.steps[len(earlier) :]]
    _entries[id(timeline)] = (timeline, parts)
    return parts


def _earlier_entries(timeline: Timeline) -> list[str]:
    """The entries of a kept timeline whose steps begin this one's (the same steps, shared by
    `Replays.extend`), the longest such, or none."""
    found: list[str] = []
    for kept, parts in list(_entries.values()):
        n = len(kept.steps)
        if len(found) < n <= timeline.moves and timeline.steps[n - 1] is kept.steps[-1]:
            found = parts
    return found


def _entry(timeline: Timeline, step: Step) -> str:
    seat = timeline.seat(step.seat)
    return (
        f'<li class="colour-{escape(seat.colour)}"><button type="button" data-k="{step.seq}"'
        f'><span class="when">{clock(step.at_ms)}</span> <span class="swatch"'
        f' aria-hidden="true"></span><span class="what"><strong>{escape(seat.name)}</strong>'
        f" {escape(step.line)}</span></button></li>"
    )


def back_to_live(request: HttpRequest, room: Room) -> str:
    """Players go back to their seat; anyone else back to watching (never a new seat)."""
    return f"/r/{room.code}/" if seat_of(request, room) else f"/r/{room.code}/watch/"


def _refused(
    request: HttpRequest, room: Room | None, game: Game | None
) -> tuple[str, Decision] | None:
    """Why this address may not have the game replayed from its whole log now, and for how
    long; None when it may, or when nothing needs replaying (a kept timeline)."""
    if room is None or game is None or not history.costly(room, game):
        return None
    return too_many_builds(request, time.time())


def _too_many(response: HttpResponse, decision: Decision) -> HttpResponse:
    """`response` as a 429 with `Retry-After` and the RateLimit headers (`limits.headers`)."""
    response.status_code = 429
    for name, value in headers(decision).items():
        response[name] = value
    return response


@require_safe
def replay(request: HttpRequest, code: str, number: int) -> HttpResponse:
    room = find_room(code)
    game = None if room is None else room.games.filter(number=number).first()
    refused = _refused(request, room, game)
    if room is not None and refused is not None:
        context: dict[str, Any] = {
            "error": refused[0],
            "error_title": "Too many games at once",
            "room": room,
        }
        return _too_many(render(request, "games/replay.html", context), refused[1])
    timeline = None if room is None or game is None else history.timeline_of(room, game)
    if room is None or game is None or timeline is None:
        return not_found(request)
    replays = kind_of(room.kind).replays
    assert replays is not None
    if timeline.withheld:
        context = {
            "room": room,
            "game": game,
            "kind": kind_of(room.kind),
            "timeline": timeline,
            "live": True,
            "back_to_live": back_to_live(request, room),
            "preview": tags(request, room, game, Page.REPLAY),
        }
        return render(request, "games/replay.html", context)
    try:
        k = position(request, timeline)
    except BadMove as error:
        return render(request, "games/replay.html", {"error": str(error), "room": room}, status=400)
    parts = len(timeline.parts) or 1
    data = {
        "width": timeline.width,
        "height": timeline.height,
        "ids": timeline.ids,
        "legend": timeline.legend,
        **chunk(timeline, chunk_of(k)),
        "moves": timeline.moves,
        "chunk": CHUNK,
        "chunk_url": reverse("replay_chunk", args=[room.code, game.number, 0])[:-2],
        "version": game.version,
        "colours": {str(seat): timeline.seat(seat).colour for seat in _seats(timeline)},
        "status": timeline.status,
        "over": timeline.over,
        "mines": timeline.mines,
        "exploded": timeline.exploded,
        "k": k,
        # Several boards side by side (a race): where each starts, how many fit across.
        "parts": [part.offset for part in timeline.parts],
        "safe": timeline.width * timeline.height - timeline.stats.get("mines", 0),
        "across": min(parts, 4, max(1, 60 // timeline.width)),
        "across_phone": min(parts, 2 if timeline.width <= 12 else 1),
    }
    context = {
        "room": room,
        "game": game,
        "kind": kind_of(room.kind),
        "replays": replays,
        "timeline": timeline,
        "k": k,
        "board_html": board_html(timeline, k, replays.cell_class),
        "timeline_html": timeline_html(timeline, k),
        "chunk_size": CHUNK,
        "chunk_note": chunk_note(chunk_of(k), timeline.moves),
        "stats": named_stats(timeline.stats, timeline.seat),
        "data": data,
        "speeds": SPEEDS,
        "live": not timeline.over and game.number == _current_number(room),
        "back_to_live": back_to_live(request, room),
        "share_url": request.build_absolute_uri(f"/r/{room.code}/games/{game.number}/?move={k}"),
        "status_at_k": timeline.status if k == timeline.moves else Game.Status.PLAYING,
        "preview": tags(request, room, game, Page.REPLAY, k),
        "chat": chat_on_timeline(game, timeline),
    }
    return render(request, "games/replay.html", context)


def chat_on_timeline(game: Game, timeline: Timeline) -> list[dict[str, Any]]:
    """The players' chat of the game, each line at its time since the first move and with the
    number of moves made by then (a link to the board as it was). Never the spectators'."""
    lines = ChatMessage.objects.filter(game=game, channel=ChatMessage.Channel.PLAYERS)
    first = game.moves.order_by("seq").values_list("created_at", flat=True).first()
    times = [step.at_ms for step in timeline.steps if step.at_ms is not None]
    found = []
    for line in lines.order_by("id"):
        ms = None if first is None else round((line.at - first).total_seconds() * 1000)
        k = 0 if ms is None else bisect.bisect_right(times, ms)
        found.append({"m": line, "when": clock(max(ms or 0, 0)), "k": k})
    return found


def _seats(timeline: Timeline) -> set[int]:
    return {step.seat for step in timeline.steps}


CHUNKS_KEPT = 64
_chunks: LRUCache[str, bytes] = LRUCache(CHUNKS_KEPT)
"""Chunks kept written out as JSON, per process, by their ETag (what makes them the same): the
viewers of one game ask for the same ones. At most about 150 kB each, some 10 MB in all."""


@require_safe
def replay_chunk(request: HttpRequest, code: str, number: int, first: int) -> HttpResponse:
    """One chunk of a game's timeline (`chunk`, with its entries), as `replay.js` asks for it
    when the viewer goes past the moves the page carried. A finished game's never change, so
    the browser keeps them; a game under way's are checked by their ETag."""
    room = find_room(code)
    game = None if room is None else room.games.filter(number=number).first()
    refused = _refused(request, room, game)
    if refused is not None:
        return _too_many(JsonResponse({"error": refused[0]}), refused[1])
    timeline = None if room is None or game is None else history.timeline_of(room, game)
    if room is None or game is None or timeline is None:
        return JsonResponse({"error": "No such game."}, status=404)
    if timeline.withheld:
        return JsonResponse({"error": timeline.withheld}, status=403)
    if first % CHUNK or first > max(0, timeline.moves - 1):
        last = chunk_of(timeline.moves)
        error = f"first must be a multiple of {CHUNK} from 0 to {last}, not {first}."
        return JsonResponse({"error": error}, status=400)
    # A full chunk is the same at every later version (moves are only ever appended) until the
    # game ends, and for good after; the last one grows. The seed is hashed: it would tell
    # where the mines are.
    full = first + CHUNK <= timeline.moves
    tag = f"{game.pk}:{game.seed}:{first}:{timeline.over}" + ("" if full else f":{game.version}")
    etag = '"' + hashlib.sha256(tag.encode()).hexdigest()[:24] + '"'
    cache_control = f"max-age={FULL_CHUNK_SECONDS}" if timeline.over else "no-cache"
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        body = _chunk_json(etag, timeline, first)
        response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response


def _chunk_json(etag: str, timeline: Timeline, first: int) -> bytes:
    """The chunk's answer, written once per process and `etag`: a full chunk once for every
    version of the game, the last one once per version."""
    kept = _chunks.get(etag)
    if kept is not None:
        return kept
    parts = _entries_of(timeline)[first : first + CHUNK]
    body = json.dumps(chunk(timeline, first) | {"entries": "".join(parts)}).encode()
    _chunks[etag] = body
    return body


def _current_number(room: Room) -> int | None:
    return room.games.order_by("-number").values_list("number", flat=True).first()


@require_safe
def rewind(request: HttpRequest, code: str) -> HttpResponse:
    """The game under way, from its first move: the room page's "Rewind" opens it."""
    room = find_room(code)
    number = None if room is None else _current_number(room)
    if room is None or number is None:
        return not_found(request)
    return redirect("replay", code=room.code, number=number)


@require_safe
def records(request: HttpRequest) -> HttpResponse:
    return render(request, "games/records.html", {"boards": history.records()})


@require_safe
def room_history(request: HttpRequest, code: str) -> HttpResponse:
    """The room's past games, for the room page's list to refresh itself."""
    room = find_room(code)
    if room is None:
        return not_found(request)
    context = {"room": room, "history": history.room_history(room)}
    return render(request, "games/history.html#room_history", context)
