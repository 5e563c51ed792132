"""Link previews (issue 28): the Open Graph and Twitter card tags of the room, watch and replay
pages, and the PNG they point to.

The picture is drawn from the public timeline (`history.timeline_of`), the same one the replay
page shows: before a game ends it holds no mine, and a race under way holds no board at all (its
racers' boards are drawn blank). Pictures are kept per game version and move, so a link pasted
into a busy chat costs one drawing; drawing more than that (a crawler walking every move of
every replay) is counted per client address (`PREVIEWS_PER_MINUTE`), with the timeline it
needs: a kept picture reads nothing.
"""

import hashlib
import time
from dataclasses import dataclass

from cachetools import LRUCache
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from ..kinds.replays import MINESWEEPER_LEGEND, Page, Timeline
from ..store.models import Game, Room
from . import history
from .preview_image import PARTS_SHOWN, Picture, png
from .preview_tags import words_of
from .room_limit import client_address, per_minute
from .views import find_room, not_found, too_many

PREVIEWS_KEPT = 64
"""Pictures kept per process (each 15–30 kB, a 50×50 board's under 150 kB: docs/operations.md,
"Limits")."""
LIVE_MAX_AGE = 30
"""Seconds a chat app may keep the picture of a game under way; a finished one does not change."""
DONE_MAX_AGE = 86_400


@dataclass(frozen=True, slots=True)
class Kept:
    body: bytes
    etag: str
    max_age: int


_pictures: LRUCache[tuple[int, int, int, str, str], Kept] = LRUCache(PREVIEWS_KEPT)
"""Per (game id, seed, version, page, `?move=` as asked): the game's seed because ids come again
in tests, the page because its title is in the picture."""


def now() -> float:
    """The clock the per-minute count reads (a test holds it inside one minute)."""
    return time.time()


def forget_pictures() -> None:
    _pictures.clear()


def picture_of(room: Room, game: Game, timeline: Timeline, k: int, page: Page) -> Picture:
    title = words_of(room, game, timeline, page).title.rsplit(" — ", 1)[0]
    if not timeline.withheld:
        names = [timeline.seat(part.seat).name for part in timeline.parts]
        board = timeline.board_at(k)
        return Picture(title, timeline.width, timeline.height, board, timeline.legend, names)
    # A race under way: its racers' boards, every cell drawn hidden (spectators see them late).
    entrants = [entry[0] for entry in game.state.get("entrants") or ()][:PARTS_SHOWN] or [0]
    names = [timeline.seat(seat).name for seat in entrants]
    blank = "#" * (timeline.width * timeline.height * len(names))
    return Picture(title, timeline.width, timeline.height, blank, MINESWEEPER_LEGEND, names)


def answer(request: HttpRequest, room: Room, game: Game, page: Page) -> HttpResponse:
    """The picture, drawn once per game version and move (or the 304 a chat app's copy gets).
    A kept picture costs no timeline; one to draw is counted per address, and so is the
    timeline it needs, which a game no process keeps replays from its whole log (issue 33)."""
    if not history.replayable(room):
        return not_found(request)
    raw = request.GET.get("move", "") if page is Page.REPLAY else ""
    key = (game.pk, game.seed, game.version, page.value, raw)
    kept = _pictures.get(key)
    if kept is None:
        limit = per_minute("previews", "PREVIEWS_PER_MINUTE")
        with limit.reserve(client_address(request), now()) as reservation:
            if not reservation.decision.allowed:
                refused = HttpResponse("Too many previews drawn.", content_type="text/plain")
                return too_many(refused, reservation.decision)
            costly = history.costly(room, game)
            timeline = history.timeline_of(room, game)
            assert timeline is not None  # the kind has replays
            k = timeline.moves
            if raw and not timeline.withheld:
                if not raw.isdecimal() or int(raw) > timeline.moves:
                    if costly:  # the log was read all the same
                        reservation.keep()
                    message = f"move must be a whole number from 0 to {timeline.moves}."
                    return HttpResponse(message, status=400, content_type="text/plain")
                k = int(raw)
            body = png(picture_of(room, game, timeline, k, page))
            reservation.keep()
        age = DONE_MAX_AGE if timeline.over or k < timeline.moves else LIVE_MAX_AGE
        etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
        kept = _pictures[key] = Kept(body, etag, age)
    if request.headers.get("If-None-Match") == kept.etag:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(kept.body, content_type="image/png")
    response["ETag"] = kept.etag
    response["Cache-Control"] = f"public, max-age={kept.max_age}"
    return response


@require_safe
def room_picture(request: HttpRequest, code: str) -> HttpResponse:
    """The current game's picture, for the room and watch pages' tags."""
    room = find_room(code)
    game = None if room is None else room.current_game()
    if room is None or game is None:
        return not_found(request)
    return answer(request, room, game, Page.WATCH)


@require_safe
def replay_picture(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """A game's picture at `?move=N` (the last move without it), for the replay page's tags."""
    room = find_room(code)
    game = None if room is None else room.games.filter(number=number).first()
    if room is None or game is None:
        return not_found(request)
    return answer(request, room, game, Page.REPLAY)
