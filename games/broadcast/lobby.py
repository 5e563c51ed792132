"""The lobby's news, sent after the commit that made it (`games.rooms.lobby`): a seeker's
`matched` (or `expired`) to that seeker's socket by its channel name, and the open seeks to
everyone on `/play/` and every lobby bot through one group.

The open seeks are read and rendered once per change, in the process that made it, and the
one message carries both the page's HTML and the bots' JSON: a lobby of many viewers costs no
query and no render per viewer (docs/performance.md, "Quick match").
"""

import asyncio
import contextvars
import logging
from collections.abc import Iterable
from typing import Any

from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from ..kinds.seekable import label, seeking_kind
from ..log_limit import warn
from ..server_loop import server_loop
from ..store.models import Seek
from .outbox import LAYER_ERRORS, SEND_NOW_SECONDS

log = logging.getLogger(__name__)

GROUP = "lobby"
"""Every lobby socket, seeking or only watching the open seeks."""
SHOWN = 50
"""Open seeks the page and the bots' list show, oldest first: a longer list helps nobody pick."""


def describe(seek: Seek) -> dict[str, Any]:
    """A seek as the API, the bots' list and the page show it: its game and mode as the API
    names them, and its kind's label (`GameKind.seeking`)."""
    kind = seeking_kind(seek.game)
    return {
        "id": seek.pk,
        "game": seek.game if kind is None else kind.api_game,
        "mode": None if kind is None else kind.mode,
        "preset": seek.preset or None,
        "players": seek.players,
        "rated": seek.rated,
        "name": seek.name,
        "rating": None if seek.rating is None else round(seek.rating),
        "label": seek.game if kind is None else label(kind, seek.preset, seek.players),
    }


def open_seeks() -> list[dict[str, Any]]:
    """The open seeks, oldest first, in one query."""
    seeks = Seek.objects.filter(room__isnull=True).order_by("created_at", "pk")[:SHOWN]
    return [describe(seek) for seek in seeks]


def seeks_html(seeks: Iterable[dict[str, Any]]) -> str:
    return render_to_string("games/play.html#seeks", {"seeks": list(seeks)})


def seeks_changed() -> None:
    """After a commit that opened, took or ended a seek: the list, read and rendered once,
    to the lobby's group."""
    seeks = open_seeks()
    message = {"type": "lobby.seeks", "seeks": seeks, "html": seeks_html(seeks)}
    _send(GROUP, message, group=True)


def tell(channel: str | None, event: dict[str, Any]) -> None:
    """One seeker's socket (none for a seek without one) hears `event` as JSON."""
    if channel:
        _send(channel, {"type": "lobby.event", "event": event}, group=False)


def _send(target: str, message: dict[str, Any], *, group: bool) -> None:
    """On the server's loop when this thread works for one (never waiting for the layer on
    the database thread), else on a loop of its own, as `outbox.send` does."""
    loop = server_loop()
    if loop is None:
        try:
            asyncio.run(_deliver(target, message, group))
        except LAYER_ERRORS as error:
            warn(log, "layer_unavailable", "channel layer unavailable, lobby not told: %s", error)
        return
    context = contextvars.Context()
    loop.call_soon_threadsafe(_start, loop, target, message, group, context=context)


def _start(loop: asyncio.AbstractEventLoop, target: str, message: dict, group: bool) -> None:
    loop.create_task(_deliver_logged(target, message, group), name="lobby-news")


async def _deliver_logged(target: str, message: dict[str, Any], group: bool) -> None:
    try:
        await _deliver(target, message, group)
    except LAYER_ERRORS as error:
        warn(log, "layer_unavailable", "channel layer unavailable, lobby not told: %s", error)


async def _deliver(target: str, message: dict[str, Any], group: bool) -> None:
    layer = get_channel_layer()
    sending = layer.group_send(target, message) if group else layer.send(target, message)
    await asyncio.wait_for(sending, SEND_NOW_SECONDS)
