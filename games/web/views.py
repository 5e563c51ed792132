"""Pages: home (create and browse rooms), the room itself, its nickname step and its watch view."""

import secrets
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db.models import Count, OuterRef, Q, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from ..broadcast import bot_events, host_view
from ..kinds import KINDS, kind_for, kind_of
from ..kinds.replays import Page
from ..kinds.table import SIGN_IN_TO_RATE, GameKind
from ..limits import Decision, headers
from ..rooms import host, joining, nicknames
from ..store.models import Game, Player, Room, room_by_code
from . import history, on_now
from .forms import NicknameForm
from .preview_tags import tags
from .room_limit import join_reservation, room_reservation

LIVE_ROOMS_SHOWN = 20
ROOMS_REMEMBERED = 30
"""Seats kept per browser session; the oldest are forgotten first."""
DEFAULT_KIND = next(iter(KINDS))
"""The game the home page offers first."""


def remember_seat(request: HttpRequest, room: Room, player: Player, nickname: str) -> None:
    """The session maps room codes to seat tokens, which the websocket reads to know who you are.

    It remembers the nickname asked for, not the one given: "Ana 2" in one room is still Ana
    in the next.
    """
    # A new session key with every seat taken: a session planted in the browser beforehand
    # (its key known to whoever planted it) never holds the seat (session fixation). A browser
    # with no key yet gets a new one when the session is saved: cycling it first would write
    # an empty session, then the seat over it (two write transactions a join instead of one).
    if request.session.session_key is not None:
        request.session.cycle_key()
    seats = dict(request.session.get("players", {}))
    seats[room.code] = player.token
    request.session["players"] = dict(list(seats.items())[-ROOMS_REMEMBERED:])
    request.session["nickname"] = nickname


def find_room(code: str) -> Room | None:
    return room_by_code(code)


def seat_of(request: HttpRequest, room: Room) -> Player | None:
    return joining.find_player(room, request.session.get("players", {}).get(room.code))


def account_of(request: HttpRequest) -> Any:
    """The signed-in person's `User` (games.players), or None for a guest."""
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def as_account(request: HttpRequest, data: Any) -> Any:
    """A form's data with a signed-in person's username as the nickname: they never type one."""
    account = account_of(request)
    if account is None:
        return data
    data = data.copy()
    data["nickname"] = account.username
    return data


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", home_context(request))


def home_context(
    request: HttpRequest, game: str = DEFAULT_KIND, bound: object = None
) -> dict[str, object]:
    """Every kind's create form (the page shows the chosen game's fields), the chosen one bound
    after a failed POST, plus the live rooms."""
    initial = {"nickname": request.session.get("nickname", "")}
    forms = {name: kind.setup.create_form(initial=initial) for name, kind in KINDS.items()}
    if bound is not None:
        forms[game] = bound
        for name, kind in KINDS.items():  # a mode's board fields are its game's (a race's size)
            if kind.mode is None and kind.api_game == KINDS[game].api_game:
                forms[name] = bound
    return {
        "game": KINDS[game].api_game,
        "mode": KINDS[game].mode,
        "kinds": [(kind, forms[name]) for name, kind in KINDS.items()],
        "active_form": forms[game],
        **live_rooms_context(),
        "on_now": on_now.featured(),
    }


GAME_STATUS = dict(Game.Status.choices)


def live_rooms_context() -> dict[str, object]:
    """The public rooms someone is in, newest first, in one query however many there are
    (each room's current game's status comes with it), and "On now"'s watching count
    (`on_now_watching`, None when none is shown) read in the same query: the panel's pick is
    kept a second per process and its words redrawn every 30 s, so a count of its own had read
    "1 watching" beside the list's "2 watching" (issue 35). The featured room's row comes with
    the list's even when the list is too long to show it."""
    featured = on_now.featured()
    code = None if featured is None else featured.code
    online = Count("players", filter=Q(players__connections__gt=0))
    shown = (
        Room.objects.filter(is_public=True)
        .annotate(online=online)
        .filter(Q(online__gt=0) | Q(spectators__gt=0))
        .order_by("-created_at")
        .values("pk")[:LIVE_ROOMS_SHOWN]
    )
    status = Game.objects.filter(room=OuterRef("pk")).order_by("-number").values("status")[:1]
    rows = list(
        Room.objects.filter(Q(pk__in=shown) | Q(code=code, is_public=True))
        .annotate(online=online, status=Subquery(status))
        .order_by("-created_at")
    )
    pick = next((room for room in rows if room.code == code), None)
    listed = [room for room in rows if room.online or room.spectators][:LIVE_ROOMS_SHOWN]
    return {
        "live_rooms": [
            (
                room,
                GAME_STATUS.get(room.status, room.status),
                kind_label(room.kind),
                _describe(room.kind, room.settings),
            )
            for room in listed
        ],
        "on_now_watching": pick.spectators if pick and pick.spectator_count_shown else None,
    }


def kind_label(kind_name: str) -> str:
    """What pages call a room's kind ("Flags"), from the registry (`Room.kind` has no choices)."""
    kind = KINDS.get(kind_name)
    return kind_name if kind is None else kind.label


def _describe(kind_name: str, settings: dict[str, object]) -> str:
    kind = KINDS.get(kind_name)
    return "" if kind is None else kind.rendering.describe_settings(settings)


@require_safe
def live_rooms(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html#live_rooms", {**live_rooms_context(), "oob": True})


@require_safe
def on_now_panel(request: HttpRequest) -> HttpResponse:
    """The "On now" panel alone: the home page asks again when its game is over (or, with
    nothing live, now and then), and takes it only when the pick changed."""
    watching = live_rooms_context()["on_now_watching"]  # the list's count, read with it
    return render(
        request,
        "games/home.html#on_now",
        {"on_now": on_now.featured(), "on_now_watching": watching},
    )


TOO_MANY_ROOMS = (
    "Slow down: that's a lot of new rooms from you in one minute. Wait a moment, then try again "
    "— your existing rooms are still there."
)


@require_POST
def create_room(request: HttpRequest) -> HttpResponse:
    try:
        kind: GameKind | None = kind_for(
            request.POST.get("game") or DEFAULT_KIND, request.POST.get("mode") or None
        )
    except ValueError:
        kind = None
    if kind is None:
        *others, last = [kind.label for kind in KINDS.values() if kind.mode is None]
        names = f"{', '.join(others)} or {last}" if others else last
        context = {**home_context(request), "game_error": f"Choose {names}."}
        return render(request, "games/home.html", context, status=400)
    form = kind.setup.create_form(as_account(request, request.POST))
    with room_reservation(request, time.time()) as reservation:
        if not reservation.decision.allowed:  # the form comes back as typed, errors and all
            form.add_error(None, TOO_MANY_ROOMS)
            page = render(request, "games/home.html", home_context(request, kind.name, form))
            return too_many(page, reservation.decision)
        if not form.is_valid():
            return render(
                request, "games/home.html", home_context(request, kind.name, form), status=400
            )
        data = form.cleaned_data
        try:  # the room and its creator's seat together: a refused name leaves no room
            room, player = joining.open_room(
                kind.name,
                data["settings"],
                data["nickname"],
                is_public=data["is_public"],
                account=account_of(request),
            )
        except nicknames.NicknameError as error:
            form.add_error("nickname", str(error))
            return render(
                request, "games/home.html", home_context(request, kind.name, form), status=400
            )
        except joining.SignInToRate as error:
            form.add_error("rated", f"{error}: sign in, or untick Rated.")
            return render(
                request, "games/home.html", home_context(request, kind.name, form), status=403
            )
        reservation.keep()
    assert player is not None
    remember_seat(request, room, player, data["nickname"])
    return redirect("room", code=room.code)


def too_many(page: HttpResponse, decision: Decision) -> HttpResponse:
    """`page` as a 429 that says when to come back, as the API's do (`limits.headers`)."""
    page.status_code = 429
    for name, value in headers(decision).items():
        page[name] = value
    return page


def with_room(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Look the room up by its code, or answer with the friendly 404 (in DEBUG too)."""

    @wraps(view)
    def wrapper(request: HttpRequest, code: str) -> HttpResponse:
        room = find_room(code)
        return not_found(request) if room is None else view(request, room)

    return wrapper


WATCHER_COOKIE_SECONDS = 30 * 24 * 3600


def admitted(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A room page for a browser the host has not kicked (`games.rooms.host`): a kicked seat's
    session, or a kicked spectator's `watcher` cookie, gets a 403 page saying when to come back.
    Every browser gets its `watcher` cookie here, by which the host can kick a spectator."""

    @wraps(view)
    def wrapper(request: HttpRequest, room: Room) -> HttpResponse:
        watcher = request.COOKIES.get(host.COOKIE) or secrets.token_urlsafe(16)
        kicked = (
            host.seat_kicked(seat_of(request, room))
            or host.seat_kicked(joining.account_seat(room, account_of(request)))
            or host.spectator_kicked(room, host.handle(room.code, watcher))
        )
        if kicked is not None:
            response = render(request, "games/kicked.html", {"reason": kicked}, status=403)
        else:
            response = view(request, room)
        if host.COOKIE not in request.COOKIES:
            response.set_cookie(
                host.COOKIE,
                watcher,
                max_age=WATCHER_COOKIE_SECONDS,
                httponly=True,
                samesite="Lax",
                secure=request.is_secure(),
            )
        return response

    return wrapper


TOO_MANY_JOINS = "Slow down: that's a lot of rooms joined from you in one minute. Wait a moment."


@require_safe
@with_room
@admitted
def room(request: HttpRequest, room: Room) -> HttpResponse:
    """The room for a browser whose session holds a seat here; for any other the join page,
    the remembered nickname filled in. A GET never takes a seat (a link preview, a prefetch or
    another site's link would seat the visitor): the join form's POST does (`join`)."""
    player = seat_of(request, room)
    if player is None:
        nickname = request.session.get("nickname")
        asked = NicknameForm(initial={"nickname": nickname} if nickname else None)
        return join_page(request, room, asked, status=200)
    return render_room(request, room, player)


@require_POST
@with_room
@admitted
def join(request: HttpRequest, room: Room) -> HttpResponse:
    form = NicknameForm(as_account(request, request.POST))
    if not form.is_valid():
        return join_page(request, room, form)
    seat = take_seat(request, room, form)
    return seat if isinstance(seat, HttpResponse) else redirect("room", code=room.code)


def take_seat(request: HttpRequest, room: Room, form: NicknameForm) -> Player | HttpResponse:
    """A seat under the form's nickname, remembered in the session; or the join page saying why
    not: a refused name (400), a full room (409, with the way to watch) or too many joins (429)."""
    nickname = form.cleaned_data["nickname"]
    with join_reservation(request, time.time()) as reservation:  # only seats taken count
        if not reservation.decision.allowed:
            form.add_error(None, TOO_MANY_JOINS)
            return too_many(join_page(request, room, form, status=200), reservation.decision)
        try:
            player = joining.join_room(room, nickname, account_of(request))
        except joining.SeatKicked as error:
            reason = host.kicked_text(error.until.timestamp())
            return render(request, "games/kicked.html", {"reason": reason}, status=403)
        except nicknames.NicknameError as error:
            form.add_error("nickname", str(error))
            return join_page(request, room, form)
        except joining.RoomFull as error:
            form.add_error(None, str(error))
            return join_page(request, room, form, status=409)
        except joining.SignInToRate as error:
            form.add_error(None, str(error))
            return join_page(request, room, form, status=403)
        reservation.keep()
    remember_seat(request, room, player, nickname)
    return player


RATED_INVITE = f"{SIGN_IN_TO_RATE}: this room is rated, only signed-in players sit here."


def join_page(
    request: HttpRequest, room: Room, form: NicknameForm, status: int = 400
) -> HttpResponse:
    # A guest at a rated room's invite is told at once, not after typing a name.
    rated_guest = bool(room.settings.get("rated")) and account_of(request) is None
    taken = RATED_INVITE if rated_guest else joining.seats_taken(room)
    context = {
        "room": room,
        "host_name": host_name(room),
        "form": form,
        "kind_label": kind_label(room.kind),
        "join_summary": kind_of(room.kind).rendering.join_summary,
        "seats_taken": taken,
        "rated_guest": rated_guest,
        # Past the cap a name gets no seat at all; in a two-sided room it still joins the talk.
        "may_join": not rated_guest and (taken is None or joining.join_refusal(room) is None),
        # The name this browser used last: one click (or Enter) on "Join game" takes the seat.
        "remembered": not form.is_bound and bool(form.initial.get("nickname")),
        # A chat app's crawler lands here (no session): the link's preview, and no seat taken.
        "preview": tags(request, room, room.current_game(), Page.ROOM),
    }
    return render(request, "games/join.html", context, status=status)


def host_name(room: Room) -> str | None:
    """The host's nickname alone: the page read `room.host`, a whole Player, for one word
    (its cost: docs/history/performance-2026.md, issue 34 on a new machine)."""
    if room.host_id is None:
        return None
    return Player.objects.filter(pk=room.host_id).values_list("nickname", flat=True).first()


@require_safe
@with_room
@admitted
def watch(request: HttpRequest, room: Room) -> HttpResponse:
    return render_room(request, room, None)


def render_room(request: HttpRequest, room: Room, player: Player | None) -> HttpResponse:
    rendering = kind_of(room.kind).rendering
    context_game = room.current_game()
    hosts = player is not None and room.host_id == player.pk
    context = {
        **rendering.game_context(room, context_game),
        "me": player,
        "watching": player is None,
        "invite_url": request.build_absolute_uri(f"/r/{room.code}/"),
        "watch_url": request.build_absolute_uri(f"/r/{room.code}/watch/"),
        "history": history.room_history(room),
        "preview": tags(request, room, context_game, Page.WATCH if player is None else Page.ROOM),
        "host_menu": hosts and host_view.menu_context(room),
        "rating_changes": room.settings.get("rated") and bot_events.rating_changes(context_game),
    }
    return render(request, rendering.page_template, context)


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and compose health checks: the process answers and the database too."""
    Room.objects.exists()
    return HttpResponse("ok", content_type="text/plain")


@require_http_methods(["GET", "HEAD", "POST"])
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The friendly page for unknown rooms, in DEBUG too; it says nothing about other rooms."""
    return render(request, "games/404.html", status=404)
