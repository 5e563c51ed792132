"""The quick match page, `/play/`: the games to seek, the open seeks, and the door by which a
matched page takes its seat. Seeking and accepting go over the lobby socket
(`games.live.lobby`); the pairing is `games.rooms.lobby`'s."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from ..kinds.seekable import seekable
from ..rooms import joining, lobby
from .daily import person_of
from .views import account_of, find_room, not_found, remember_seat


@require_safe
def play(request: HttpRequest) -> HttpResponse:
    """The page, its buttons the seekable kinds' (`GameKind.seeking`); a guest's browser gets
    its random key here (`daily.person_of`), which its lobby socket reads from the session to
    know it is one person however many tabs seek."""
    person_of(request, account_of(request))
    context = {
        "seeks": lobby.open_seeks(),
        "kinds": seekable(),
        "nickname": request.session.get("nickname", ""),
    }
    return render(request, "games/play.html", context)


@require_POST
def seat(request: HttpRequest) -> HttpResponse:
    """A matched page posts its seat's token (from `matched`): the session remembers the seat,
    as after a join, and the room opens. The socket cannot write the session (it reads it)."""
    room = find_room(request.POST.get("room", ""))
    player = None if room is None else joining.find_player(room, request.POST.get("player_token"))
    if room is None or player is None:
        return not_found(request)
    remember_seat(request, room, player, request.session.get("nickname") or player.nickname)
    return redirect("room", code=room.code)
