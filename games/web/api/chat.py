"""The room's chat: a line said with a seat's token, the lines read."""

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Schema, Status
from ninja.errors import HttpError

from ...broadcast import chat_view
from ...kinds.table import Invalid
from ...rooms import chat
from ..room_limit import (
    client_address,
)
from .base import STRICT_CLOSED, VISIBLE, Error, PlayerToken, RateLimited, api, find_room, player_of


class ChatIn(Schema):
    model_config = STRICT_CLOSED
    text: str = Field(
        description="1 to 200 characters after trimming; no control characters.",
        json_schema_extra={"minLength": 1, "pattern": VISIBLE},  # chat.say says why, by name
    )


class ChatLineOut(Schema):
    author: str
    channel: Literal["players", "spectators"]
    text: str
    at: str = Field(description="When it was said, ISO 8601.")


class ChatOut(Schema):
    messages: list[ChatLineOut]


@api.post(
    "/rooms/{code}/chat",
    auth=PlayerToken(),
    response={201: ChatLineOut, **dict.fromkeys((400, 401, 403, 404, 415, 429), Error)},
    summary="Say something in the room's chat",
)
def say(request: HttpRequest, code: str, body: ChatIn) -> Status:
    """A line in the players' channel (a racer's out of a race others still run: the spectators',
    which no racer still racing hears), as the seat's name; every screen of the room shows it and
    bots get a `chat` event. 400 for an empty, over-long or control-character line, 403 for a
    muted seat, 429 past a seat's 5 lines in 10 s (or its address's 20, the room's 30)."""
    room = find_room(code)
    player = player_of(request, room)
    try:
        line = chat.say(
            room, player, body.text, address=client_address(request), sender=("seat", player.pk)
        )
    except Invalid as exc:
        raise HttpError(400, str(exc)) from None
    except chat.Muted as exc:
        raise HttpError(403, str(exc)) from None
    except chat.TooFast as exc:
        raise RateLimited(str(exc), exc.decision) from None
    return Status(201, chat_view.as_json(line))


@api.get("/rooms/{code}/chat", response={200: ChatOut, 404: Error}, summary="Read the room's chat")
def read_chat(request: HttpRequest, code: str) -> dict[str, Any]:
    """The last 50 lines, oldest first: the players' channel, and the spectators' too unless a
    race is under way (racers must not be coached)."""
    room = find_room(code)
    lines = chat_view.visible(room, player=True)
    return {"messages": [chat_view.as_json(line) for line in lines]}
