"""What the host's menu shows (`games.rooms.host`), rendered for the host's screens alone.

Apart from `host`, which writes, so that the announcer (`announce.host`) and the page can both
render it without an import circle.
"""

import time
from typing import Any

from django.template.loader import render_to_string

from ..kinds import kind_of
from ..store.models import ChatMessage, Player, Room

MIN_CAP, MAX_CAP = 2, 50
"""A room's player cap: two to play, at most the seats any room has
(`rooms.joining.MAX_PLAYERS_PER_ROOM`)."""
SPECTATORS_LISTED = 10
"""Spectators the menu lists by handle: those who said something lately."""


def menu_context(room: Room) -> dict[str, Any]:
    """What the host's menu lists: the room's switches, the seats to act on, and the
    spectators who said something lately (a spectator is known by their chat lines)."""
    now = time.time()
    seats = [p for p in room.players.all() if p.role == Player.Role.PLAYER]
    lines = ChatMessage.objects.filter(room=room, channel=ChatMessage.Channel.SPECTATORS)
    said = lines.order_by("-id").values_list("spectator", "author")[:50]
    latest: dict[str, str] = {}
    for h, author in said:  # newest first: each spectator's latest name, the latest first
        if h:
            latest.setdefault(h, author)
    spectators = [
        {
            "handle": h,
            "name": _spectator_name(h, author),
            "muted": h in room.muted_spectators,
            "kicked": room.kicked.get(h, 0) > now,
        }
        for h, author in latest.items()
    ][:SPECTATORS_LISTED]
    return {
        "room": room,
        "seats": [
            {
                "player": p,
                "is_host": p.pk == room.host_id,
                "kicked": p.kicked_until is not None and p.kicked_until.timestamp() > now,
            }
            for p in seats[:MAX_CAP]
        ],
        "spectator_handles": spectators,
        "takes_cap": kind_of(room.kind).setup.seats_for_people is None,
        "min_cap": MIN_CAP,
        "max_cap": MAX_CAP,
    }


def _spectator_name(handle: str, author: str) -> str:
    """How the menu names a spectator: the name they took (`live.seat_messages`) with their
    tag, since two may take the same name; else "Spectator" and the tag."""
    return f"{author} #{handle[:4]}"


def menu_html(room: Room, *, oob: bool = True) -> str:
    """The host's menu, swapped in by id on the host's screens."""
    return render_to_string("games/host.html#menu", {"menu": menu_context(room), "oob": oob})


def no_menu_html() -> str:
    """What replaces the menu on a screen whose seat no longer hosts."""
    return '<div id="host-menu" class="host-body" hx-swap-oob="true"></div>'
