"""The room websocket: parse a message, call the service, reply with an error to the sender alone.

Group messages are already-rendered HTML (see `announce`); `relay` hands them to the sockets.
Whatever happens inside, a socket leaves the relay and the presence counts on its way out
(`_leave`), and an unexpected error answers its sender and leaves the socket open. A peer that
reads too little is cut off (`SOCKET_OUTPUT_LIMIT_BYTES`), and its snapshots come one at a time,
shared with the room's other sockets (`snapshots`), once what it was sent before has gone
(`SNAPSHOT_BACKLOG_BYTES`); presence is told a few times a second at
most (`rosters`). The figures are in docs/operations.md ("Limits").

Each socket takes its own text of a message that has one per audience (`games.audiences`): a
racer their own board, a bot JSON events (`bot_sockets`, `games.bot_events`). A race's
spectators hear everything a few seconds late (`delayed`), and so does a racer who stopped racing
while others still race (`audiences.LATE`), until the race is over. A bot's every message is answered,
`ack` or `error`, with the `id` it carried: a bot waiting for a reply never hangs.
"""

import asyncio
import logging
import sys
import time
from collections.abc import Collection

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from django.db import DatabaseError

from .. import audiences, bot_events, chat, host, leaving, metrics, services
from ..kinds import kind_of
from ..kinds.table import Invalid, Refused
from ..limits import TokenBucket
from ..log_limit import warn
from ..messages import (
    BadMessage,
    Chat,
    Command,
    HostCommand,
    Hover,
    Leave,
    Message,
    Ping,
    React,
    TakeName,
    TooLarge,
    parse_message,
)
from ..models import Player, Room, is_room_code
from ..outbox import LAYER_ERRORS, group_name
from ..patches import channels_consumer, daphne_frames, shortcut, twisted_backlog
from ..patches.daphne_close_codes import fail_with_close_frame
from . import (
    autoplay,
    bot_sockets,
    flood,
    heartbeat,
    layer_watch,
    relay,
    rosters,
    seat_messages,
    signals,
    snapshots,
    sockets,
)
from .delayed import DelayedSender, Full
from .flood import MESSAGES, SPECTATOR_MESSAGES, TOO_FAST, flood_reason, move_budget_async
from .fragments import cursor_html, error_html
from .hints import address_of, ask_hint
from .presence import PROCESS, Arrivals, forget_presence
from .shutdown import TRY_AGAIN_LATER
from .snapshots import EVERYONE, View

log = logging.getLogger(__name__)

HOVER_INTERVAL = 0.1
"""Pointer positions go out at most ten times a second per player; the last one always does."""
ROOM_NOT_FOUND = 4404
UNKNOWN_TOKEN = 4403
TOO_MANY_SOCKETS = 4429
TOO_MANY_SOCKETS_TEXT = (
    f"Too many open connections from your address (at most {flood.SOCKETS_PER_ADDRESS}): "
    "close some tabs or bots, then reload."
)
REVOKED = "The host revoked this seat's token: ask them for a new one."
"""A bot's token names no seat of the room: like 4404, the client should not retry."""
UNKNOWN_TOKEN_TEXT = (
    "That token is not a player's of this room; join with POST /api/rooms/<code>/join."
)
ROOM_CLOSED = "The host closed this room."
POLICY_VIOLATION = 1008
SOMETHING_WENT_WRONG = "Something went wrong on the server; nothing changed. Try again."
SNAPSHOT_BACKLOG_BYTES = 64 * 1024
"""A snapshot for a socket with more than this unsent waits until its output has drained: a peer
that asks for snapshots and does not read them gets at most one more (docs/operations.md,
"Limits"). Twisted's own threshold for pausing a producer."""


class RoomConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = None
    """No channel of its own: the room's messages come through `relay`, once per process."""
    room: Room | None = None
    player: Player | None = None
    counted = False
    """Whether this socket is in the presence counts (and must be taken out again)."""
    arrivals: Arrivals | None = None
    """A spectator's: the room's arrivals it was counted with (`rosters.spectator_came`)."""
    pending_hover: Hover | None = None
    held: list[str] | None = None
    """The room's messages that arrive while a snapshot for this socket is being made; they
    follow it (None when no snapshot is on its way). So every connection starts with the
    snapshot, and a resync's snapshot never lands on top of a newer move."""
    hover_task: "asyncio.Task[None] | None" = None
    snapshot_task: "asyncio.Task[None] | None" = None
    snapshot_wanted = False
    """A sync arrived while a snapshot was on its way: one more follows it, however many came."""
    connection: WebSocketProtocol | None = None
    """Daphne's websocket under this socket, for room messages framed once (`daphne_frames`)."""
    joined = False
    """Whether this socket is in the relay (and must be taken out again)."""
    closing = False
    """Closed by the server (flood, output limit): what the peer still sends is ignored."""
    cut_off_task: asyncio.Task[None] | None = None
    drain: twisted_backlog.Drain | None = None
    """Tells when this socket's unsent output has gone: a snapshot waits for it."""
    """Cutting off a peer found over the output limit by `deliver_now`."""
    errors = 0
    """Unexpected errors so far: the first is logged with its traceback, the rest counted."""
    role = "spectator"
    """`player` or `spectator`, for the open-sockets gauge (`metrics`)."""
    audience: tuple[str, ...] = audiences.order(None)
    """Which text of a message with one per audience this socket takes (`relay`)."""
    view: View = EVERYONE
    """Which snapshot this socket gets (`snapshots`)."""
    json = False
    """A bot's socket: JSON events instead of HTML (`bot_sockets`)."""
    shows_pointers = True
    """Whether this socket's pointer positions go to the room: not with per-seat boards, where
    a pointer on a copy of the layout would show rivals the safe cells (`PerSeatBoards`)."""
    commands: Collection[str] = ()
    """The room's kind's own commands (`GameKind.commands`), which its messages may name."""
    delayed: DelayedSender | None = None
    """A race spectator's: what this socket hears goes out that much later (`delayed`); a
    seat's while it is `behind`, and until what waited then has gone."""
    behind = False
    """A seat's socket whose racer stopped while others race: it hears the room as late as the
    spectators do (`audiences.LATE`), until the race is over (`audiences.LIVE`)."""
    settled = False
    """A spectator's game was over when the socket opened: its first snapshot goes out at once
    (nobody is left to coach); what follows, a rematch, comes late as usual."""
    own_seat: int | None = None
    """On a watch link, the seat this browser's session holds where boards are private: the
    socket sees that seat's view (a racer watching their own race learns no rival's cells)."""
    address = "unknown"
    """The client's address as every per-address limit counts it (`flood.address_key`)."""
    holds_address = False
    """Whether this socket counts toward its address's open sockets (`flood.SOCKETS`)."""
    close_counted = False
    """Whether this socket's close is in the metrics: the first close seen, the server's or
    the peer's, is counted."""
    spectator: str | None = None
    """A seatless socket's handle in the room (`host.handle`): its chat lines carry it, and the
    host kicks or mutes by it."""
    kicked: str | None = None
    """Why the host's kick keeps this socket out (`host`), found on the way in."""
    session_seat: Player | None = None
    spectator_name: str | None = None
    """The name a spectator took on this socket (`seat_messages`): their chat lines carry it."""
    """On a watch link, the seat this browser's session holds in the room: its mute holds here."""

    async def __call__(self, scope, receive, send) -> None:
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
        self.room, self.player = await database_sync_to_async(self._enter)(code, credentials)
        if self.room is None:
            # Accepted first: a handshake refused before it reaches browsers as 1006, which they
            # retry for ever; 4404 after the handshake tells the page to stop.
            await self._refuse(ROOM_NOT_FOUND, "No such room.")
            return
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
        room = Room.objects.filter(code=code).first() if is_room_code(code) else None
        if room is None:
            return None, None
        if credentials.token is not None:  # a bot: its token, never the session
            player = services.find_player(room, credentials.token)
            self.kicked = host.seat_kicked(player)
            if player is None:
                self.spectator = host.handle(room.code, None)
            return room, player
        tokens = self.scope.get("session", {}).get("players", {})
        player = services.find_player(room, tokens.get(code))
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
        assert self.room is not None
        seat = self.own_seat if self.player is None else self.player.number
        self.audience = audiences.order(seat, json=self.json, spectator=self.spectator)
        per_seat = kind_of(self.room.kind).per_seat_boards
        self.shows_pointers = per_seat is None
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
        assert self.room is not None
        if self.player is None:
            if delta > 0:
                self.arrivals = rosters.spectator_came(self.room.pk, self.address)
                self.counted = True
            else:
                assert self.arrivals is not None
                rosters.spectator_left(self.room.pk, self.arrivals, self.address)
            return
        await database_sync_to_async(services.presence_changed)(
            self.room, self.player, delta, PROCESS
        )
        if delta > 0:
            self.counted = True
        else:
            autoplay.schedule(self.room)  # an away move may start a grace period to time
        rosters.changed(self.room.pk, player=True)

    async def _send_snapshot(self) -> None:
        """The board as the database has it now, then the room's messages held meanwhile.

        Held, because a move committed while the snapshot is read can reach this socket first;
        the older snapshot would then overwrite it on the page, which would wait for that
        version for ever. Behind the snapshot, pages skip what it already shows and apply the
        rest. Holding starts before the read (`self.held = []`, set by the caller)."""
        try:
            cache = relay.snapshots_of(self.group)
            if cache is None:
                html = await snapshots.render(self.room.pk, self.view)
            else:
                html = await cache.html(self.room.pk, self.view)
            at_once, self.settled = self.settled, False
            await self._out(html, at_once=at_once)
        finally:
            held, self.held = self.held or [], None
            for message in held:
                await self._out(message)

    async def _snapshots(self) -> None:
        """Snapshots for `sync`, one at a time: syncs that arrive meanwhile get one more, once
        the socket's earlier output has gone."""
        try:
            while self.snapshot_wanted and not self.closing:
                await self._output_drained()
                if self.closing:
                    break
                self.snapshot_wanted = False
                self.held = []
                await self._send_snapshot()
        except LAYER_ERRORS as error:
            warn(
                log, "layer_unavailable", "snapshot not sent, channel layer unavailable: %s", error
            )
        except Exception:
            await self._unexpected()
        finally:
            self.snapshot_task = None

    async def _output_drained(self) -> None:
        """Until this socket has at most `SNAPSHOT_BACKLOG_BYTES` unsent. A peer that does not
        read would otherwise be sent snapshot after snapshot until the output limit cut it off,
        and it reconnected to do it again: a good part of the event loop's time and Daphne's
        memory under that attack (docs/performance.md, issue 26). Room messages do not wait."""
        while self.drain is not None:
            unsent = twisted_backlog.unsent_bytes(self.connection)
            if unsent is None or unsent <= SNAPSHOT_BACKLOG_BYTES:
                return
            await self.drain.drained()

    def _want_snapshot(self) -> None:
        self.snapshot_wanted = True
        if self.snapshot_task is None:
            self.snapshot_task = asyncio.create_task(self._snapshots())

    def deliver_now(self, html: str) -> bool:
        """`deliver` without a coroutine, for the common case: a socket that is neither held,
        delayed nor closing, whose frame goes to its Daphne connection at once
        (`daphne_frames`). The relay calls it for every socket of a room on each message: a
        chain of coroutines per socket was a good part of a busy room's CPU (docs/performance.md).
        False, and nothing sent, otherwise: then `deliver`."""
        if (
            self.held is not None
            or self.delayed is not None
            or self.closing
            or html.startswith(audiences.SIGN)
            or not daphne_frames.send(self.connection, html)
        ):
            return False
        if self._unsent_over_limit() is not None:  # rare: cut the socket off, off this path
            self.cut_off_task = asyncio.create_task(self._check_output())
        return True

    async def deliver(self, html: str) -> None:
        """A message of the room, from `relay`: framed once for all the room's sockets here."""
        if html == audiences.REVOKED_TEXT:
            await self._revoked()
        elif html == audiences.KICKED_TEXT:
            await self._close_with(
                host.kicked_text(time.time() + host.kick_seconds()), UNKNOWN_TOKEN
            )
        elif html == audiences.LEFT_TEXT:
            await self._close_with(leaving.LEFT_REASON, leaving.LEFT)
        elif html == audiences.CLOSED_TEXT:
            await self._close_with(ROOM_CLOSED, ROOM_NOT_FOUND)
        elif html == audiences.RESYNC_TEXT:
            self._want_snapshot()  # a bot's: the whole game changed (a new game)
        elif self.held is not None:
            self.held.append(html)
        else:
            await self._out(html)

    async def _revoked(self) -> None:
        """The host revoked this seat's token: the socket closes as a wrong token's would."""
        await self._close_with(REVOKED, UNKNOWN_TOKEN)

    async def _close_with(self, reason: str, code: int) -> None:
        """The reason to this socket (at once, even a delayed spectator's), then the close."""
        if self.closing:
            return
        self.held = None  # no snapshot of a room that is gone
        await self._reply(reason)
        self.closing = True
        self._stop_tasks()
        await self.close(code=code)

    async def _out(self, html: str, *, at_once: bool = False) -> None:
        """The room's game to this socket: now, or as late as its delay says; a text for a
        racer's screens may say that they fall behind or catch up (`audiences.LATE`, `LIVE`)."""
        if html.startswith(audiences.LIVE):
            html = html.removeprefix(audiences.LIVE)
            self._catch_up()
        now, late, later = html.partition(audiences.LATE)
        if now:
            await self._out_one(now, at_once)
        if late:
            self._fall_behind()
            if later:
                await self._out_one(later, at_once=False)

    def _fall_behind(self) -> None:
        """This seat's racer stopped while others race: from now on the socket hears the room
        as late as a spectator (nothing, with a room whose spectators watch live)."""
        per_seat = kind_of(self.room.kind).per_seat_boards
        if self.behind or self.json or self.view.seat is None or per_seat is None:
            return
        seconds = per_seat.spectator_delay(self.room)
        if seconds <= 0:
            return
        self.behind = True
        if self.delayed is None:
            self.delayed = DelayedSender(seconds, self._transmit)
        else:  # still catching up from an earlier race: its texts go first
            self.delayed.slow(seconds)

    def _catch_up(self) -> None:
        """The race is over (or a new one begins): what waits goes out now, then nothing waits."""
        if self.behind and self.delayed is not None:
            self.behind = False
            self.delayed.hurry()

    def _caught_up(self) -> bool:
        """Whether this seat's socket, late while its racer watched, has sent all that waited."""
        held = self.delayed
        return held is not None and not self.behind and held.seconds == 0 and held.idle

    async def _out_one(self, html: str, at_once: bool) -> None:
        if self._caught_up():
            self.delayed = None  # at once from here on
        if self.delayed is None or at_once:
            await self._transmit(html)
            return
        try:
            self.delayed.put(html)
        except Full:
            if not self.closing:
                warn(
                    log,
                    "delayed_behind",
                    "room %s: a delayed socket fell too far behind",
                    self.room.pk,
                )
                self.closing = True
                self._stop_tasks()
                await self.close(code=TRY_AGAIN_LATER)

    async def _transmit(self, html: str) -> None:
        """To this socket (a message, a snapshot, an error): framed once when many sockets
        send the same text."""
        if self.closing:
            return
        if not daphne_frames.send(self.connection, html):
            await self.send(text_data=html)
        await self._check_output()

    async def _reply(self, message: str, request_id: object = None) -> None:
        """An error to this socket alone: after the snapshot on its way, if there is one (the
        snapshot clears the error line); never delayed, it says nothing of the game."""
        text = bot_events.error(message, request_id) if self.json else error_html(message)
        await self._reply_text(text)

    async def _reply_text(self, text: str) -> None:
        """An answer to this socket alone, as `_reply` sends it."""
        if self.held is not None:
            self.held.append(text)
        else:
            await self._transmit(text)

    async def _check_output(self) -> None:
        """Cut off a peer that leaves more than the limit unread: Twisted would buffer for it
        without end. 1013 (try again later) for a peer that still reads the close frame;
        one that does not gets its connection dropped, and its buffer freed, at once."""
        unsent = self._unsent_over_limit()
        if unsent is None or self.closing:
            return
        limit = settings.SOCKET_OUTPUT_LIMIT_BYTES
        self.closing = True
        metrics.refused("output")
        warn(
            log,
            "output_limit",
            "room %s: cutting off a socket that does not read: %d bytes unsent, output limit %d",
            self.room.pk,
            unsent,
            limit,
        )
        self._stop_tasks()
        await self.close(code=TRY_AGAIN_LATER)
        twisted_backlog.cut_off(self.connection)

    def _unsent_over_limit(self) -> int | None:
        """The bytes this socket's peer has left unread, when more than the limit."""
        unsent = twisted_backlog.unsent_bytes(self.connection)
        over = unsent is not None and unsent > settings.SOCKET_OUTPUT_LIMIT_BYTES
        return unsent if over else None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:
            return  # frames already on their way when the server closed: not worth a line each
        if not self.bucket.take(time.monotonic()).allowed:
            warn(log, "flood", "closing a flooding socket in room %s", self.room.pk)
            metrics.refused("flood")
            self.closing = True
            self._stop_tasks()
            await self.close(code=POLICY_VIOLATION, reason=flood_reason(self.messages))
            return
        message: Message | None = None
        request_id = bot_events.request_id(text_data) if self.json else None
        try:
            message = parse_message(text_data, self.commands)
            outcome = await self._handle(message)
            if self.json:
                await self._acknowledge(message, outcome, request_id)
        except (BadMessage, Invalid, Refused, services.Forbidden, chat.Muted) as error:
            metrics.refused(_refusal(message, error))
            await self._reply(str(error), request_id)
        except LAYER_ERRORS:
            raise  # the socket closes with 1013 (`__call__`), and the page reconnects
        except Exception:
            await self._unexpected(request_id)

    async def _handle(self, message: Message) -> services.Outcome | None:
        if isinstance(message, Hover):
            await self._hover(message)
            return None
        if isinstance(message, Ping | React):  # presence: no move budget (one read: a mute)
            await signals.send(self.room, self.player, message, self.address)
            return None
        if isinstance(message, Command) and message.name == "sync":
            self._want_snapshot()
            return None
        if isinstance(message, Chat):
            await self._chat(message)
            return None
        if isinstance(message, HostCommand):
            await database_sync_to_async(host.apply)(self.room, self.player, message)
            return None
        if isinstance(message, Leave | TakeName):
            await seat_messages.handle(self, message)
            return None
        if isinstance(message, Command) and message.name == "hint":
            # Off the database thread and within the room's and address's limits (`hints`).
            return await ask_hint(self.room, self.player, self.address)
        services.refuse_spectator(self.room, self.player, message)  # no database trip
        await self._take_move_budget()
        with metrics.move_received():
            outcome = await _play(self.room, self.player, message)
        # The computer's reply, its opening after a rematch, or the Solver bot going on.
        autoplay.schedule(self.room, outcome.game)
        return outcome

    async def _chat(self, message: Chat) -> None:
        """A chat line, paced per seat (a spectator: per socket), address and room (`chat`)."""
        sender = ("socket", id(self)) if self.player is None else ("seat", self.player.pk)
        await database_sync_to_async(chat.say)(
            self.room,
            self.player,
            message.text,
            address=self.address,
            sender=sender,
            spectator=self.spectator,
            session_seat=self.session_seat,
            name=self.spectator_name,
        )

    async def _acknowledge(
        self, message: Message, outcome: services.Outcome | None, request_id: object
    ) -> None:
        """A bot's message taken: `ack` with the game as the message left it (a move that
        changed nothing leaves the version as it was; a `new_game` naming a game already
        replaced names the current one), and a hint's cell."""
        facts: dict[str, object] = {}
        if outcome is not None:
            game = outcome.game
            facts = {"number": game.number, "version": game.version, "status": game.status}
            if "hint" in outcome.applied.summary and isinstance(message, Command):
                cell = outcome.applied.summary["hint"]
                facts["cell"] = None if cell is None else {"x": cell[0], "y": cell[1]}
        await self._reply_text(bot_events.ack(_action(message), request_id, **facts))

    async def _take_move_budget(self) -> None:
        """A seat's moves draw on one budget whichever door they come by (`flood.move_budget`),
        so a bot cannot add the API's pace to its socket's. Spectators' moves are refused
        further on."""
        if self.player is None:
            return
        if not (await move_budget_async(self.player.pk, self.address, time.monotonic())).allowed:
            raise Refused(TOO_FAST)

    async def _unexpected(self, request_id: object = None) -> None:
        """A bug, or a database that failed: the sender hears that nothing changed, and the
        socket stays open (a close would skip nothing now, but make the page reconnect)."""
        self.errors += 1
        if isinstance(sys.exception(), DatabaseError):
            metrics.DATABASE_ERRORS.inc()
        if self.errors == 1:
            log.exception("room %s: unexpected error on a socket", self.room.pk)
        else:
            log.debug("room %s: unexpected error %d on a socket", self.room.pk, self.errors)
        await self._reply(SOMETHING_WENT_WRONG, request_id)

    async def _hover(self, hover: Hover) -> None:
        """Throttled with a trailing send: a position arriving within the interval waits for
        its end, replacing any still waiting, so the cell the pointer rests on always goes out."""
        if self.player is None or not self.shows_pointers:
            return
        self.pending_hover = hover
        if self.hover_task is not None:
            return  # the waiting send takes the newest position
        wait = self.last_hover + HOVER_INTERVAL - time.monotonic()
        if wait <= 0:
            await self._send_hover()
        else:
            self.hover_task = asyncio.create_task(self._trailing_hover(wait))

    async def _trailing_hover(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self.hover_task = None
        try:
            await self._send_hover()
        except LAYER_ERRORS as error:
            warn(
                log,
                "layer_unavailable",
                "pointer position not sent, channel layer unavailable: %s",
                error,
            )

    async def _send_hover(self) -> None:
        hover, self.pending_hover = self.pending_hover, None
        if hover is None:
            return
        self.last_hover = time.monotonic()
        html = cursor_html(self.player, hover.x, hover.y)
        # A snapshot shows no pointers: the room's kept snapshot stays good (`relay`).
        message = {"type": "room.html", "html": html, "keeps_snapshot": True}
        await get_channel_layer().group_send(self.group, message)

    def _stop_tasks(self) -> None:
        if self.delayed is not None:
            self.delayed.stop()
        for task in (self.hover_task, self.snapshot_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self.hover_task = self.snapshot_task = None

    async def dispatch(self, message: dict) -> None:
        """Channels' own, or the same less its database trip per frame (`channels_consumer`)."""
        if shortcut("dispatch"):
            await channels_consumer.dispatch(self, message)
        else:
            await super().dispatch(message)


@database_sync_to_async
def _play(room: Room, player: Player | None, message: Message) -> services.Outcome:
    """`services.play` on the database thread, wrapped once: making the wrapper took about
    60 µs of a move that arrives after a pause (docs/performance.md)."""
    return services.play(room, player, message)


def _action(message: Message) -> str:
    """The action a message named, as an `ack` repeats it."""
    if isinstance(message, Command):
        return message.name
    if isinstance(message, Hover):
        return "hover"
    if isinstance(message, Ping):
        return "ping"
    if isinstance(message, React):
        return "react"
    if isinstance(message, Chat):
        return "chat"
    if isinstance(message, Leave | TakeName):
        return "leave" if isinstance(message, Leave) else "name"
    return getattr(message, "action", "mark")  # a cell move's or a host command's


def _refusal(message: Message | None, error: Exception) -> str:
    """The metrics' reason for a refused message: a few fixed words, never the message."""
    if isinstance(error, TooLarge):
        return "size"
    if message is None:
        return "malformed"
    if isinstance(message, Command) and message.name == "hint":
        return "hint"
    if isinstance(message, Ping | React):
        return "signal"
    if isinstance(message, Chat):
        return "chat"
    if isinstance(message, HostCommand):
        return "host"
    if isinstance(message, Leave | TakeName):
        return "seat"
    return "move"
