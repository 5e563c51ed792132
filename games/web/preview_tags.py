"""The `og:` and `twitter:` tags of the room, watch and replay pages (issue 28): the words of
`preview_words` and the absolute URL of the picture `previews` draws. base.html writes them,
escaped, when a page's context has `preview`."""

import time

from django.http import HttpRequest

from ..kinds import kind_of
from ..kinds.preview_words import words
from ..kinds.replays import Page, Timeline, Words
from ..store.models import Game, Room
from . import history
from .room_limit import too_many_builds


def words_of(room: Room, game: Game, timeline: Timeline, page: Page) -> Words:
    facts = {
        "settings": room.settings,
        "params": game.params,
        "state": game.state,
        "status": game.status,
    }
    return words(kind_of(room.kind), timeline, facts, page)


def image_path(room: Room, game: Game, page: Page, k: int | None) -> str:
    """The picture's URL: the version (or move) in it, so a chat app that keeps pictures by URL
    fetches a new one once the game has moved on."""
    if page is Page.REPLAY:
        move = "" if k is None else f"?move={k}"  # none: a race under way, drawn blank
        return f"/r/{room.code}/games/{game.number}/preview.png{move}"
    return f"/r/{room.code}/preview.png?v={game.number}.{game.version}"


def tags(
    request: HttpRequest, room: Room, game: Game | None, page: Page, k: int | None = None
) -> dict[str, str]:
    """What base.html writes as `og:` and `twitter:` tags (escaped there); {} without a game,
    and {} when their words would replay the game's whole log (no process keeps its timeline)
    for an address past `REPLAY_BUILDS_PER_MINUTE`: the page is served all the same (issue 33)."""
    if game is None:
        return {}
    if history.costly(room, game) and too_many_builds(request, time.time()) is not None:
        return {}
    timeline = history.timeline_of(room, game)
    if timeline is None:
        return {}
    said = words_of(room, game, timeline, page)
    url = f"/r/{room.code}/" + ("watch/" if page is Page.WATCH else "")
    if page is Page.REPLAY:
        url = f"/r/{room.code}/games/{game.number}/" + ("" if k is None else f"?move={k}")
    return {
        "title": said.title,
        "description": said.description,
        "image": request.build_absolute_uri(image_path(room, game, page, k)),
        "url": request.build_absolute_uri(url),
    }
