"""A seat's own page controls: the Leave button (`games.leaving`).

Leave is a form's POST, so it works without a script: the browser's session forgets the seat at
once, and the page goes to the room's watch page; the seat's other open tabs hear it on their
sockets (closed with `leaving.LEFT`).
"""

import contextlib

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from .. import leaving, services
from ..models import Room
from .views import admitted, seat_of, with_room


@require_POST
@with_room
@admitted
def leave(request: HttpRequest, room: Room) -> HttpResponse:
    """Leave the seat this browser holds, then watch; a browser without a seat here (it left
    already, in another tab) goes to the watch page too: there is nothing left to do."""
    player = seat_of(request, room)
    if player is not None:
        with contextlib.suppress(services.Forbidden):  # left meanwhile: the same result
            leaving.leave(room, player)
    forget_seat(request, room)
    return redirect("watch", code=room.code)


def forget_seat(request: HttpRequest, room: Room) -> None:
    """The session no longer holds a seat in `room`; the remembered nickname stays."""
    seats = dict(request.session.get("players", {}))
    if seats.pop(room.code, None) is not None:
        request.session["players"] = seats
