"""The lobby websocket, `/ws/lobby/`: JSON both ways, for `/play/` and for bots alike
(docs/contracts.md, "Quick match").

A socket seeks a game (`seek`), leaves the queue (`cancel`) or takes an open seek (`accept`);
the pairing is `games.rooms.lobby`'s, and its news comes back through the channel layer: a
`matched` to this socket's channel, the open seeks to the lobby's group. The room socket's flood
rules hold here too, with the same limiters: the open sockets per address (`flood.SOCKETS`),
every message of a socket (`flood.MESSAGES`), and control frames (installed for every server
socket, `games.patches.autobahn_control_frames`). Whichever way the socket ends, its seek ends
with it (`_leave`).
"""

import json
import logging
import time
from typing import Any

from channels.auth import get_user
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from ..broadcast.lobby import GROUP, seeks_html
from ..broadcast.outbox import LAYER_ERRORS
from ..kinds.seekable import SEEKABLE
from ..limits import TokenBucket
from ..log_limit import warn
from ..protocol import flood
from ..protocol import seeks as messages
from ..rooms import lobby
from ..rooms.hints import address_of
from . import bot_sockets
from .consumer import TOO_MANY_SOCKETS, TOO_MANY_SOCKETS_TEXT
from .receiving import POLICY_VIOLATION, SOMETHING_WENT_WRONG
from .shutdown import TRY_AGAIN_LATER

log = logging.getLogger(__name__)

NO_SEEK = "You have no open seek to cancel."


class LobbyConsumer(AsyncWebsocketConsumer):
    seek_id: int | None = None
    """This socket's open seek."""
    holds_address = False
    joined = False
    closing = False
    errors = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """As the room socket: the channel layer (Redis) failing closes the socket with 1013
        (try again later) and one line in the log, not a traceback and a seek left behind."""
        try:
            await super().__call__(scope, receive, send)
        except LAYER_ERRORS as error:
            warn(
                log,
                "layer_unavailable",
                "lobby socket closed, channel layer unavailable: %s",
                error,
            )
            self.joined = False  # the layer cannot take the discard either
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
        finally:
            await self._leave()  # every way out: a disconnect, an error, a cancelled task

    async def connect(self) -> None:
        self.address = address_of(self.scope)
        self.holds_address = flood.SOCKETS.take(self.address)
        if not self.holds_address:
            await self._refuse(TOO_MANY_SOCKETS, TOO_MANY_SOCKETS_TEXT)
            return
        if flood.control_frames_spent(self.address):
            await self._refuse(POLICY_VIOLATION, flood.ADDRESS_CONTROL_FLOOD_REASON)
            return
        self.bucket = TokenBucket.full(flood.MESSAGES, time.monotonic())
        self.account, self.browser, self.nickname = await self._who()
        await self.channel_layer.group_add(GROUP, self.channel_name)
        self.joined = True
        await self._accept()
        seeks = await database_sync_to_async(lobby.open_seeks)()
        await self._send({"type": "seeks", "seeks": seeks, "html": seeks_html(seeks)})

    async def _who(self) -> tuple[Any, str, str | None]:
        """The signed-in account (the session's, as pages know it), the browser's random key
        (`lobby.BROWSER_KEY`, written by `/play/`), the nickname the pages remember."""
        if "session" not in self.scope:
            return None, "", None
        user = await get_user(self.scope)
        account = user if user.is_authenticated else None
        session = self.scope["session"]
        browser = await database_sync_to_async(session.get)(lobby.BROWSER_KEY)
        nickname = session.get("nickname")
        return (
            account,
            browser if isinstance(browser, str) else "",
            nickname if isinstance(nickname, str) else None,
        )

    async def _accept(self) -> None:
        asked = bot_sockets.SUBPROTOCOL in self.scope.get("subprotocols", ())
        await self.accept(subprotocol=bot_sockets.SUBPROTOCOL if asked else None)

    async def _refuse(self, code: int, reason: str) -> None:
        self.closing = True
        await self._accept()
        await self._send({"type": "error", "error": reason})
        await self.close(code=code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:
            return
        if not self.bucket.take(time.monotonic()).allowed:
            self.closing = True
            await self.close(code=POLICY_VIOLATION, reason=flood.FLOOD_REASON)
            return
        try:
            message = messages.parse(text_data, SEEKABLE)
            await self._handle(message)
        except (messages.BadSeek, lobby.SeekError) as error:
            await self._send({"type": "error", "error": str(error)})
        except LAYER_ERRORS:
            raise  # closes with 1013 (`__call__`)
        except Exception:
            self.errors += 1
            if self.errors == 1:
                log.exception("lobby: unexpected error on a socket")
            await self._send({"type": "error", "error": SOMETHING_WENT_WRONG})

    async def _handle(self, message: messages.LobbyMessage) -> None:
        if isinstance(message, messages.Cancel):
            if self.seek_id is None:
                raise lobby.SeekError(NO_SEEK)
            seek_id, self.seek_id = self.seek_id, None
            await database_sync_to_async(lobby.cancel)(seek_id)
            await self._send({"type": "cancelled", "seek": seek_id})
            return
        if isinstance(message, messages.Seek) and self.seek_id is not None:
            raise lobby.SeekError(lobby.ONE_SEEK)
        seeker = self._seeker(message.name)
        if isinstance(message, messages.Accept):
            await database_sync_to_async(lobby.accept)(message.seek, seeker)
            self.seek_id = None  # an open seek of this person's ended: they play this one
            return  # `matched` comes through the layer, as to the seeker taken
        result = await database_sync_to_async(lobby.seek)(seeker, message.wanted)
        if isinstance(result, lobby.Waiting):
            self.seek_id = result.seek
            await self._send({"type": "waiting", "seek": result.seek, "queue": result.queue})

    def _seeker(self, name: str | None) -> lobby.Seeker:
        return lobby.Seeker(
            address=self.address,
            account=self.account,
            browser=self.browser,
            channel=self.channel_name,
            name=name or self.nickname,
        )

    async def lobby_event(self, message: dict[str, Any]) -> None:
        """This socket's own news: `matched` or `expired`; either way its seek is no longer
        open."""
        event = message["event"]
        if event.get("type") in ("matched", "expired"):
            self.seek_id = None
        await self._send(event)

    async def lobby_seeks(self, message: dict[str, Any]) -> None:
        """The open seeks changed: the list as read and rendered once for everyone."""
        await self._send({"type": "seeks", "seeks": message["seeks"], "html": message["html"]})

    async def _send(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(event, separators=(",", ":")))

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def _leave(self) -> None:
        """Once, however the socket ends: its address's count back, out of the group, and its
        seek ended."""
        if self.holds_address:
            self.holds_address = False
            flood.SOCKETS.give_back(self.address)
        if self.joined:
            self.joined = False
            await self.channel_layer.group_discard(GROUP, self.channel_name)
        if self.seek_id is not None:
            seek_id, self.seek_id = self.seek_id, None
            await database_sync_to_async(lobby.forget)(seek_id)
