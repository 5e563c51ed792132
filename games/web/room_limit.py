"""The limits the pages and the API count per client address and minute (rooms created, seats
taken, API hints) and per room (one API hint a `HINT_ROOM_SECONDS`): `limits.Shared`, in the
cache, so they hold across every server process when Redis is configured. Only rooms made and
seats taken count: a form sent back with errors, or a full room, does not. Each limit's figure is
read from settings when used (tests and `ROOMS_PER_MINUTE` in a development server's
environment change it)."""

import math
from contextlib import AbstractContextManager

from django.conf import settings
from django.http import HttpRequest

from ..limits import Decision, Limit, Reservation, Shared
from ..protocol.flood import address_key


def client_address(request: HttpRequest) -> str:
    """The peer address as limits count it (`address_key`: an IPv6 /64 is one); behind a proxy
    in TRUSTED_PROXIES, its X-Forwarded-For's (config/asgi.py puts it here)."""
    return address_key(request.META.get("REMOTE_ADDR") or "unknown")


def per_minute(name: str, setting: str) -> Shared:
    """`settings.<setting>` of `name` per client address and clock minute."""
    return Shared(Limit(name, int(getattr(settings, setting)), settings.RATE_WINDOW_SECONDS))


def room_reservation(request: HttpRequest, now: float) -> AbstractContextManager[Reservation]:
    """One new room, at most `ROOMS_PER_MINUTE` (`Shared.reserve`)."""
    return per_minute("rooms", "ROOMS_PER_MINUTE").reserve(client_address(request), now)


def join_reservation(request: HttpRequest, now: float) -> AbstractContextManager[Reservation]:
    """One seat taken in a room, by the page or the API, at most `JOINS_PER_MINUTE`."""
    return per_minute("joins", "JOINS_PER_MINUTE").reserve(client_address(request), now)


def hint_reservation(request: HttpRequest, now: float) -> AbstractContextManager[Reservation]:
    """One hint asked through the API, at most `HINTS_PER_MINUTE`."""
    return per_minute("hints", "HINTS_PER_MINUTE").reserve(client_address(request), now)


def too_many_builds(request: HttpRequest, now: float) -> tuple[str, Decision] | None:
    """When this address has had too many games replayed from their whole log this minute
    (`REPLAY_BUILDS_PER_MINUTE`: a page, a chunk or the API's view of a game no process keeps):
    what to tell it and the decision (for `Retry-After`). None to go on, the build counted."""
    limit = per_minute("replay-builds", "REPLAY_BUILDS_PER_MINUTE")
    with limit.reserve(client_address(request), now) as reservation:
        decision = reservation.decision
        if decision.allowed:
            reservation.keep()
            return None
    wait = max(1, math.ceil(decision.retry_after))
    return f"Too many games opened from your address: try again in {wait} s.", decision


def room_hints() -> Shared:
    """At most one API hint per room every `settings.HINT_ROOM_SECONDS`, across processes: a
    hint shows for everyone, so a second one that soon mostly repeats it."""
    return Shared(Limit("hint-room", 1, settings.HINT_ROOM_SECONDS))


def room_hint(room_id: int, now: float) -> Decision:
    return room_hints().once(str(room_id), now)


def release_room_hint(room_id: int) -> None:
    """Give the room its interval back after a refused hint (the first click, a game over):
    nobody was shown anything, so the room may ask again at once."""
    room_hints().give_back(str(room_id))
