"""Lobby sockets (`/ws/lobby/`) as a bot or a page opens them, and a session for a page's."""

from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from config.asgi import application
from games.rooms.lobby import BROWSER_KEY
from tests.helpers.bots import event
from tests.helpers.environment import ORIGIN
from tests.helpers.web import TIMEOUT


def lobby_session(browser: str | None = None, user: Any = None) -> SessionStore:
    """A session as `/play/` leaves it: a guest's browser key, or a signed-in account."""
    session = SessionStore()
    if browser is not None:
        session[BROWSER_KEY] = browser
    if user is not None:
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return session


async def lobby(
    *, browser: str | None = None, user: Any = None, address: str | None = None
) -> WebsocketCommunicator:
    """A connected lobby socket that has read its first list of open seeks: a bot's (the
    `json` subprotocol, no Origin, no cookie), or with `browser` or `user` a page's."""
    headers: list[tuple[bytes, bytes]] = []
    subprotocols: list[str] | None = ["json"]
    if browser is not None or user is not None:
        session = await database_sync_to_async(lobby_session)(browser, user)
        headers = [
            (b"origin", ORIGIN.encode()),
            (b"cookie", f"sessionid={session.session_key}".encode()),
        ]
        subprotocols = None
    socket = WebsocketCommunicator(
        application, "/ws/lobby/", headers=headers, subprotocols=subprotocols
    )
    if address is not None:
        socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    first = await event(socket)
    assert first["type"] == "seeks", first
    return socket


async def seek(socket: WebsocketCommunicator, **fields: Any) -> None:
    await socket.send_json_to({"action": "seek", **fields})


async def reply(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The next message that is not a list of open seeks."""
    while True:
        received = await event(socket)
        if received["type"] != "seeks":
            return received
