"""`POST /rooms/<code>/host`: the host controls, the same bodies as on the socket."""

import time
from typing import Any

from django.http import HttpRequest
from ninja import Body, Field, Schema
from ninja.errors import HttpError

from ...kinds.table import Invalid, Refused
from ...protocol.flood import TOO_FAST, move_budget
from ...protocol.messages import (
    HOST_ACTIONS,
    BadMessage,
    host_command,
)
from ...rooms import base, host
from ...store.models import Room
from ..room_limit import (
    client_address,
)
from .base import Error, PlayerToken, RateLimited, api, find_room, player_of


class HostDone(Schema):
    action: str
    notice: str = Field(description="What every screen of the room is told.")
    host: int | None = Field(description="The seat that hosts the room now.")


HOST_EXAMPLES = [
    {"action": "kick", "seat": 2},
    {"action": "kick", "spectator": "0123456789ab"},
    {"action": "lock"},
    {"action": "unlock"},
    {"action": "cap", "players": 8},
    {"action": "visibility", "public": False},
    {"action": "mute", "seat": 2},
    {"action": "mute", "spectators": True},
    {"action": "unmute", "spectator": "0123456789ab"},
    {"action": "transfer", "seat": 2},
    {"action": "spectator_count", "shown": False},
]


@api.post(
    "/rooms/{code}/host",
    auth=PlayerToken(),
    response={200: HostDone, **dict.fromkeys((400, 401, 403, 404, 409, 415, 429), Error)},
    summary="Host controls (host only)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["action"],
                        "properties": {
                            "action": {"enum": list(HOST_ACTIONS)},
                            "seat": {"type": "integer"},
                            "spectator": {"type": "string", "minLength": 12, "maxLength": 12},
                            "spectators": {"const": True},
                            "players": {"type": "integer", "minimum": 2, "maximum": 50},
                            "public": {"type": "boolean"},
                            "shown": {"type": "boolean"},
                        },
                    },
                    "examples": {
                        str(i): {"value": example} for i, example in enumerate(HOST_EXAMPLES)
                    },
                }
            },
        }
    },
)
def host_controls(request: HttpRequest, code: str, body: Body[dict[str, Any]]) -> dict[str, Any]:
    """The room's host, with the same bodies as the room websocket: `kick` a seat (or a
    spectator by the handle their chat lines carry; out for 10 minutes: the seat's token gets
    403, its sockets close with 4403, its seat and moves stay), `lock`/`unlock` (no new
    players; 409 to a join), `cap` the players (2 to 50; default 8; 409 past it; not in a
    two-seat game), `visibility` (`public` false leaves the live list), `mute`/`unmute` a seat,
    a spectator or all spectators, `transfer` the host seat, show or hide the
    `spectator_count`. Every screen is told; bots get a `host` event. 403 for anyone but the
    host, 400 for a body or a seat that cannot be, 409 for what the room refuses now; 429 (with
    `Retry-After`) past the seat's move budget, which host commands share with its moves, as
    they share its socket's message budget: each one tells every screen in the room."""
    room = find_room(code)
    player = player_of(request, room)
    budget = move_budget(player.pk, client_address(request), time.monotonic())
    if not budget.allowed:
        raise RateLimited(TOO_FAST, budget)
    try:
        command = host_command(body)
        notice = host.apply(room, player, command)
    except (BadMessage, Invalid) as exc:
        raise HttpError(400, str(exc)) from None
    except base.Forbidden as exc:
        raise HttpError(403, str(exc)) from None
    except Refused as exc:
        raise HttpError(409, str(exc)) from None
    seat = Room.objects.filter(pk=room.pk).values_list("host__number", flat=True).get()
    return {"action": command.action, "notice": notice, "host": seat}
