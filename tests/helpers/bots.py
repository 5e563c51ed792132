"""A bot's websocket (a seat's token, JSON events) and reading its next event of a type.

Moved out of tests/web/test_bot_sockets.py (issue 34): test modules share helpers from here, never
from each other."""

import json
from typing import Any

from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.store.models import Room
from tests.helpers.web import TIMEOUT


async def bot(room: Room, token: str | None, *, how: str = "header") -> WebsocketCommunicator:
    """A bot's socket, no Origin and no cookie, as a script opens it."""
    path, headers, subprotocols = f"/ws/r/{room.code}/", [], None
    if how == "header":
        headers.append((b"authorization", f"Bearer {token}".encode()))
        subprotocols = ["json"]
    else:
        path += f"?token={token}&format=json" if token else "?format=json"
    socket = WebsocketCommunicator(application, path, headers=headers, subprotocols=subprotocols)
    connected, subprotocol = await socket.connect(timeout=TIMEOUT)
    assert connected
    assert subprotocol == ("json" if how == "header" else None)
    return socket


async def event(socket: WebsocketCommunicator, kind: str | None = None) -> dict[str, Any]:
    """The next JSON event (of `kind`, when given); every message a bot gets must be JSON."""
    while True:
        received = json.loads(await socket.receive_from(timeout=TIMEOUT))
        if kind is None or received["type"] == kind:
            return received
