"""A seat's own page controls: the Leave button (`games.rooms.leaving`) and the invite's QR code.

Leave is a form's POST, so it works without a script: the browser's session forgets the seat at
once, and the page goes to the room's watch page; the seat's other open tabs hear it on their
sockets (closed with `leaving.LEFT`). The QR code is the invite link drawn as SVG by `segno`:
nothing in it that the link does not already say, and only the players' pages show it.
"""

import contextlib
import io

import segno
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from ..rooms import leaving
from ..rooms.base import Forbidden
from ..store.models import Room
from .views import admitted, seat_of, with_room

QR_CACHE_SECONDS = 24 * 3600
"""A room's invite link never changes: browsers keep its picture a day (private: the picture
is the link, which shared caches need not hold)."""


@require_POST
@with_room
@admitted
def leave(request: HttpRequest, room: Room) -> HttpResponse:
    """Leave the seat this browser holds, then watch; a browser without a seat here (it left
    already, in another tab) goes to the watch page too: there is nothing left to do."""
    player = seat_of(request, room)
    if player is not None:
        with contextlib.suppress(Forbidden):  # left meanwhile: the same result
            leaving.leave(room, player)
    forget_seat(request, room)
    return redirect("watch", code=room.code)


def forget_seat(request: HttpRequest, room: Room) -> None:
    """The session no longer holds a seat in `room`; the remembered nickname stays."""
    seats = dict(request.session.get("players", {}))
    if seats.pop(room.code, None) is not None:
        request.session["players"] = seats


@require_GET
@with_room
@cache_control(private=True, max_age=QR_CACHE_SECONDS)
def qr(request: HttpRequest, room: Room) -> HttpResponse:
    """The invite link (`/r/<code>/`, as the page's invite box shows it) as a QR code: an SVG
    of dark modules on white with the standard quiet zone, medium error correction (a phone
    reads it off a dim laptop screen), scaled by the page."""
    link = request.build_absolute_uri(f"/r/{room.code}/")
    out = io.BytesIO()
    code = segno.make_qr(link, error="m")
    code.save(
        out,
        kind="svg",
        scale=4,
        border=4,
        dark="#000",
        light="#fff",
        xmldecl=False,
        svgclass=None,
        lineclass=None,
        title="Invite link",
    )
    return HttpResponse(out.getvalue(), content_type="image/svg+xml")
