"""The room websocket: parse a message, call the service, reply with an error to the sender alone.

Group messages are already-rendered HTML (see `announce`); `relay` hands them to the sockets.
Whatever happens inside, a socket leaves the relay and the presence counts on its way out
(`_leave`), and an unexpected error answers its sender and leaves the socket open. A peer that
reads too little is cut off (`SOCKET_OUTPUT_LIMIT_BYTES`), and its snapshots come one at a time,
shared with the room's other sockets (`snapshots`), once what it was sent before has gone
(`SNAPSHOT_BACKLOG_BYTES`); presence is told a few times a second at
most (`rosters`). The figures are in docs/operations.md ("Limits").

Each socket takes its own text of a message that has one per audience (`games.protocol.audiences`): a
racer their own board, a bot JSON events (`bot_sockets`, `games.broadcast.bot_events`). A race's
spectators hear everything a few seconds late (`delayed`), and so does a racer who stopped racing
while others still race (`audiences.LATE`), until the race is over. A bot's every message is answered,
`ack` or `error`, with the `id` it carried: a bot waiting for a reply never hangs.
"""

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async

from .. import metrics
from ..broadcast import bot_events
from ..broadcast.outbox import LAYER_ERRORS, group_name
from ..kinds import kind_of
from ..limits import TokenBucket
from ..log_limit import warn
from ..patches import channels_consumer, daphne_frames, shortcut, twisted_backlog
from ..patches.daphne_close_codes import fail_with_close_frame
from ..protocol import audiences, flood
from ..protocol.flood import MESSAGES, SPECTATOR_MESSAGES
from ..rooms import autoplay, host, joining, presence
from ..rooms.hints import address_of
from ..store.models import Player, Room, room_by_code
from . import bot_sockets, heartbeat, layer_watch, relay, rosters, sockets
from .delayed import DelayedSender
from .fragments import error_html
from .output import ROOM_NOT_FOUND, SNAPSHOT_BACKLOG_BYTES, UNKNOWN_TOKEN
from .presence import PROCESS, forget_presence
from .receiving import (  # noqa: F401 (tests read SOMETHING_WENT_WRONG here)
    POLICY_VIOLATION,
    SOMETHING_WENT_WRONG,
    Receiving,
)
from .shutdown import TRY_AGAIN_LATER
from .snapshots import View

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
"""ASGI's, as Channels calls a consumer."""

TOO_MANY_SOCKETS = 4429
TOO_MANY_SOCKETS_TEXT = (
    f"Too many open connections from your address (at most {flood.SOCKETS_PER_ADDRESS}): "
    "close some tabs or bots, then reload."
)
UNKNOWN_TOKEN_TEXT = (
    "That token is not a player's of this room; join with POST /api/rooms/<code>/join."
)


class RoomConsumer(Receiving):
    """One room socket: its way in (`connect`: the room, the seat or a spectator's handle, the
    view, the relay, the snapshot, presence) and its way out (`_leave`, whichever way it ends);
    reading is `Receiving`'s, writing `Output`'s, and the state they share is declared there."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The channel layer (Redis) can fail under an open socket or during its handshake.
        Channels would then skip `disconnect` (the player stays "online" for ever) and Daphne log
        a traceback per socket. Instead: one line, the presence count undone, and a close htmx
        retries: a refused handshake before accept, 1013 (try again later) after."""
        try:
            if shortcut("serve"):  # no task and wait per idle socket (`channels_consumer`)
                await channels_consumer.serve(self, scope, receive, send)
            else:
                await super().__call__(scope, receive, send)
        except LAYER_ERRORS as error:
            warn(
                log, "layer_unavailable", "room socket closed, channel layer unavailable: %s", error
            )
            metrics.LAYER_ERRORS.inc()
            self._count_close(TRY_AGAIN_LATER)
            self._stop_tasks()
            self._give_address_back()
            await forget_presence([self])
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
        finally:
            # Every way out: a disconnect, an error, a cancelled consumer. The presence count
            # and the relay's reference would otherwise outlive the socket.
            await self._leave()

    async def connect(self) -> None:
        code = self.scope["url_route"]["kwargs"]["code"]
        credentials = bot_sockets.credentials(self.scope)
        self.json = credentials.json
        self.address = address_of(self.scope)
        self.holds_address = flood.SOCKETS.take(self.address)
        if not self.holds_address:  # refused before any database work
            metrics.refused("sockets")
            await self._refuse(TOO_MANY_SOCKETS, TOO_MANY_SOCKETS_TEXT)
            return
        if flood.control_frames_spent(self.address):  # flooding pings: not even a room lookup
            metrics.refused("control_frames")
            self.closing = True
            await self._accept()
            await self.close(code=POLICY_VIOLATION, reason=flood.ADDRESS_CONTROL_FLOOD_REASON)
            return
        room, self.player = await database_sync_to_async(self._enter)(code, credentials)
        if room is None:
            # Accepted first: a handshake refused before it reaches browsers as 1006, which they
            # retry for ever; 4404 after the handshake tells the page to stop.
            await self._refuse(ROOM_NOT_FOUND, "No such room.")
            return
        self.room = room
        if credentials.token is not None and self.player is None and self.kicked is None:
            await self._refuse(UNKNOWN_TOKEN, UNKNOWN_TOKEN_TEXT)
            return
        if self.kicked is not None:  # the page says why too: it will not reconnect
            await self._refuse(UNKNOWN_TOKEN, self.kicked, to_pages=True)
            return
        self._choose_view()
        self.group = group_name(self.room.pk)
        self.last_hover = 0.0
        # A player's pointer and clicks, or a spectator's few words (`flood`).
        self.messages = MESSAGES if self.player is not None else SPECTATOR_MESSAGES
        self.bucket = TokenBucket.full(self.messages, time.monotonic())
        self.held = []
        self.joined = True  # before the await: a cancelled join must be left too
        self.role = "spectator" if self.player is None else "player"
        metrics.socket_opened(self.role)
        await relay.join(self.group, self)
        await self._accept()
        self.connection = daphne_frames.connection_of(self.base_send)
        fail_with_close_frame(self.connection)
        self.drain = twisted_backlog.watch_output(self.connection, SNAPSHOT_BACKLOG_BYTES)
        sockets.track(self)
        layer_watch.watch()
        # Before the count: the process's row comes first.
        await heartbeat.register(autoplay.schedule)
        await self._send_snapshot()
        await self._presence(+1)
        autoplay.schedule(self.room)  # a computer may be due: resume after a restart, or start

    def _enter(
        self, code: str, credentials: bot_sockets.Credentials
    ) -> tuple[Room | None, Player | None]:
        room = room_by_code(code)
        if room is None:
            return None, None
        if credentials.token is not None:  # a bot: its token, never the session
            player = joining.find_player(room, credentials.token)
            self.kicked = host.seat_kicked(player)
            if player is None:
                self.spectator = host.handle(room.code, None)
            return room, player
        tokens = self.scope.get("session", {}).get("players", {})
        player = joining.find_player(room, tokens.get(code))
        self.spectator = host.handle(room.code, self.scope.get("cookies", {}).get(host.COOKIE))
        self.kicked = host.seat_kicked(player) or host.spectator_kicked(room, self.spectator)
        if credentials.watch:
            self.session_seat = player
            if player is not None and kind_of(room.kind).per_seat_boards is not None:
                self.own_seat = player.number
            self.settled = room.current_game().is_over
            return room, None
        return room, player

    def _choose_view(self) -> None:
        """Which texts and snapshots this socket gets, and whether they come late."""
        seat = self.own_seat if self.player is None else self.player.number
        self.audience = audiences.order(seat, json=self.json, spectator=self.spectator)
        per_seat = kind_of(self.room.kind).per_seat_boards
        self.shows_pointers = per_seat is None
        self.paced = audiences.paced(seat, json=self.json, per_seat_boards=per_seat is not None)
        self.commands = kind_of(self.room.kind).commands.keys()
        personal = self.json or per_seat is not None
        self.view = View(seat if personal else None, self.json)
        delay = None if per_seat is None else per_seat.spectator_delay
        if seat is None and delay is not None and (seconds := delay(self.room)) > 0:
            self.delayed = DelayedSender(seconds, self._transmit)

    async def _accept(self) -> None:
        """With the `json` subprotocol when the bot asked for it (clients fail a handshake
        that drops the subprotocol they asked for)."""
        asked = bot_sockets.SUBPROTOCOL in self.scope.get("subprotocols", ())
        await self.accept(subprotocol=bot_sockets.SUBPROTOCOL if asked else None)

    async def _refuse(self, code: int, reason: str, *, to_pages: bool = False) -> None:
        self.closing = True
        await self._accept()
        if self.json:
            await self.send(text_data=bot_events.error(reason))
        elif to_pages:
            await self.send(text_data=error_html(reason))
        await self.close(code=code)

    async def disconnect(self, close_code: int) -> None:
        self._count_close(close_code)
        await self._leave()

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self._count_close(code)
        await super().close(code=code, reason=reason)

    def _count_close(self, code: int | bool | None) -> None:
        if not self.close_counted:
            self.close_counted = True
            metrics.closed(1000 if code is True or code is None else code)

    def _give_address_back(self) -> None:
        """This socket no longer counts toward its address's cap (once)."""
        if self.holds_address:
            self.holds_address = False
            flood.SOCKETS.give_back(self.address)

    async def _leave(self) -> None:
        """Out of the relay and the presence counts; once, whichever way the socket ends."""
        self._give_address_back()
        sockets.forget(self)
        twisted_backlog.release(self.connection)  # once the connection is lost: free its bytes
        heartbeat.socket_left()
        self._stop_tasks()
        try:
            if self.joined:
                self.joined = False
                metrics.socket_gone(self.role)
                await relay.leave(self.group, self)
        finally:
            if self.counted:
                self.counted = False  # before the await: `forget_presence` may run meanwhile
                await self._presence(-1)
                if self.player is not None:  # a seat's grace period may have started: its clock
                    autoplay.schedule(self.room)

    async def _presence(self, delta: int) -> None:
        """A seat's socket is counted in the database now (its seat may come back or go away,
        a move); a spectator's with the room's next presence message (`rosters`)."""
        if self.player is None:
            if delta > 0:
                self.arrivals = rosters.spectator_came(self.room.pk, self.address)
                self.counted = True
            else:
                assert self.arrivals is not None
                rosters.spectator_left(self.room.pk, self.arrivals, self.address)
            return
        await database_sync_to_async(presence.presence_changed)(
            self.room, self.player, delta, PROCESS
        )
        if delta > 0:
            self.counted = True
        else:
            autoplay.schedule(self.room)  # an away move may start a grace period to time
        rosters.changed(self.room.pk, player=True)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' own, or the same less its database trip per frame (`channels_consumer`)."""
        if shortcut("dispatch"):
            await channels_consumer.dispatch(self, message)
        else:
            await super().dispatch(message)
