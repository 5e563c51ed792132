"""What a sign-in refused by django-axes answers (`AXES_LOCKOUT_CALLABLE`): JSON under /api/,
as every API error is, and a page elsewhere, both saying when to try again."""

import math

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

LOCKED = "Too many failed sign-ins from your address or for this username: try again in {minutes}."


def locked_out(
    request: HttpRequest, response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    cool_off = get_cool_off(request)
    seconds = max(60, math.ceil(cool_off.total_seconds())) if cool_off else 60
    minutes = round(seconds / 60)
    message = LOCKED.format(minutes="1 minute" if minutes == 1 else f"{minutes} minutes")
    if request.path.startswith("/api/"):
        answer: HttpResponse = JsonResponse({"error": message}, status=429)
    else:
        answer = render(request, "players/locked.html", {"message": message}, status=429)
    answer["Retry-After"] = str(seconds)
    return answer


def lockout_parameters(request_or_attempt: object, credentials: dict | None) -> list[str]:
    """What failed sign-ins count under (`AXES_LOCKOUT_PARAMETERS`): the address, and for
    accounts the username too, each on its own. /admin/ counts the address alone, so a guesser
    cannot lock an operator out from elsewhere (docs/operations.md, "Admin")."""
    path = str(getattr(request_or_attempt, "path_info", "") or "")
    return ["ip_address"] if path.startswith("/admin/") else ["ip_address", "username"]
