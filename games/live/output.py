"""A room socket's outgoing side: the room's messages and snapshots to one socket, in order
(held behind a snapshot on its way, late for a race's spectators), framed once for the room's
sockets (`daphne_frames`), and a peer that reads too little cut off (`SOCKET_OUTPUT_LIMIT_BYTES`;
its snapshots wait for its output to drain: `SNAPSHOT_BACKLOG_BYTES`). The controls beside a
room's texts (`audiences.Control`) close the socket or ask it for a snapshot of its own."""

import asyncio
import logging
import time
from collections.abc import Collection

from channels.generic.websocket import AsyncWebsocketConsumer
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings

from .. import metrics
from ..broadcast import bot_events
from ..broadcast.outbox import LAYER_ERRORS
from ..kinds import kind_of
from ..limits import Limit, TokenBucket
from ..log_limit import warn
from ..patches import daphne_frames, twisted_backlog
from ..protocol import audiences
from ..protocol.flood import MESSAGES
from ..protocol.messages import Hover
from ..rooms import host, leaving
from ..store.models import Player, Room
from . import relay, snapshots
from .delayed import DelayedSender, Full
from .fragments import error_html
from .presence import Arrivals
from .shutdown import TRY_AGAIN_LATER
from .snapshots import EVERYONE, View

log = logging.getLogger(__name__)

REVOKED = "The host revoked this seat's token: ask them for a new one."
"""A bot's token names no seat of the room: like 4404, the client should not retry."""
ROOM_CLOSED = "The host closed this room."
SNAPSHOT_BACKLOG_BYTES = 64 * 1024
"""A snapshot for a socket with more than this unsent waits until its output has drained: a peer
that asks for snapshots and does not read them gets at most one more (docs/operations.md,
"Limits"). Twisted's own threshold for pausing a producer."""
ROOM_NOT_FOUND = 4404
UNKNOWN_TOKEN = 4403


class Output(AsyncWebsocketConsumer):
    """`RoomConsumer`'s writing: messages, snapshots and replies to this one socket; and the
    state a room socket keeps, which its reading and its connecting share."""

    channel_layer_alias = None
    """No channel of its own: the room's messages come through `relay`, once per process."""
    room: Room
    """The socket's room: set by `connect` before the socket reads or hears anything (a socket
    refused for want of a room never gets this far)."""
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
    paced = False
    """A seat's page in a room of per-seat boards, whose texts may carry `audiences.LATE` or
    `LIVE` (`audiences.paced`): they never take `deliver_now`'s way, which sends a text as it
    is; `deliver` reads the signs."""
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
    """On a watch link, the seat this browser's session holds in the room: its mute holds here."""
    spectator_name: str | None = None
    """The name a spectator took on this socket (`seat_messages`): their chat lines carry it."""

    group = ""
    """The room's group (`outbox.group_name`), set on connect."""
    last_hover = 0.0
    messages: Limit = MESSAGES
    """The frame budget this socket spends (`flood`): a player's or a spectator's."""
    bucket: TokenBucket

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
            or self.paced
            or not daphne_frames.send(self.connection, html)
        ):
            return False
        if self._unsent_over_limit() is not None:  # rare: cut the socket off, off this path
            self.cut_off_task = asyncio.create_task(self._check_output())
        return True

    async def deliver(self, html: str) -> None:
        """A message of the room, from `relay`: framed once for all the room's sockets here."""
        if self.held is not None:
            self.held.append(html)
        else:
            await self._out(html)

    async def control(self, control: audiences.Control) -> None:
        """What a room's message tells this socket (`relay`), at once: even a held or delayed
        socket closes now."""
        match control:
            case audiences.Control.REVOKED:
                await self._revoked()
            case audiences.Control.KICKED:
                reason = host.kicked_text(time.time() + host.kick_seconds())
                await self._close_with(reason, UNKNOWN_TOKEN)
            case audiences.Control.LEFT:
                await self._close_with(leaving.LEFT_REASON, leaving.LEFT)
            case audiences.Control.CLOSED:
                await self._close_with(ROOM_CLOSED, ROOM_NOT_FOUND)
            case audiences.Control.RESYNC:
                self._want_snapshot()  # a bot's: the whole game changed (a new game)

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
        """The bytes this socket's peer has left unread, when more than the limit. The setting
        is read only when some are: the kernel takes a room message whole nearly always, and a
        setting read per socket was about 1 % of a 100-socket room's CPU (docs/performance.md)."""
        unsent = twisted_backlog.unsent_bytes(self.connection)
        over = bool(unsent) and unsent > settings.SOCKET_OUTPUT_LIMIT_BYTES
        return unsent if over else None

    def _stop_tasks(self) -> None:
        if self.delayed is not None:
            self.delayed.stop()
        for task in (self.hover_task, self.snapshot_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self.hover_task = self.snapshot_task = None
