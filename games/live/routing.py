"""The websocket routes: a room's socket and the lobby's, with or without its trailing slash, and a close with
4404 for any other path (Channels' router would fail the handshake with a 500 and a traceback)."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

from ..broadcast import bot_events
from . import bot_sockets
from .consumer import RoomConsumer
from .lobby import LobbyConsumer
from .output import ROOM_NOT_FOUND

NO_SUCH_PATH = "No websocket here: a room's is /ws/r/<code>/, the lobby's /ws/lobby/."


class NoSuchPath(AsyncWebsocketConsumer):
    """Accepted, then closed with 4404 as an unknown room's socket is: a handshake refused
    before reaches a browser as 1006, which it retries for ever."""

    async def connect(self) -> None:
        asked = bot_sockets.SUBPROTOCOL in self.scope.get("subprotocols", ())
        await self.accept(subprotocol=bot_sockets.SUBPROTOCOL if asked else None)
        if bot_sockets.credentials(self.scope).json:
            await self.send(text_data=bot_events.error(NO_SUCH_PATH))
        await self.close(code=ROOM_NOT_FOUND)


websocket_urlpatterns = [
    re_path(r"^ws/r/(?P<code>[^/]+)/?$", RoomConsumer.as_asgi()),
    re_path(r"^ws/lobby/?$", LobbyConsumer.as_asgi()),
    re_path(r"", NoSuchPath.as_asgi()),
]
