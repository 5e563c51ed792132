"""A room socket's incoming side: each frame within the socket's budget, parsed at the edge into
its entry of the message table (`games.protocol.message_table`), checked as the entry says (a
spectator's move, the move budget), handed to the entry's handler (`HANDLERS`: the actions of
`games.rooms`, or this socket's own for a pointer, a snapshot, a seat's leave and name), and
answered: a bot's `ack`, or an error to the sender alone. Pointer positions go out throttled,
with a trailing send."""

import asyncio
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import DatabaseError

from .. import metrics
from ..broadcast import bot_events
from ..broadcast.outbox import LAYER_ERRORS
from ..kinds.table import Invalid, Refused
from ..log_limit import warn
from ..protocol.flood import TOO_FAST, flood_reason, move_budget_async
from ..protocol.message_table import Budget, Entry, Handler, Sender, read_message
from ..protocol.messages import (
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
)
from ..rooms import autoplay, base, chat, dispatch, host, signals
from ..rooms.hints import ask_hint_async
from ..store.models import Player, Room
from . import seat_messages
from .fragments import cursor_html
from .output import Output

log = logging.getLogger(__name__)

HOVER_INTERVAL = 0.1
"""Pointer positions go out at most ten times a second per player; the last one always does."""
POLICY_VIOLATION = 1008
SOMETHING_WENT_WRONG = "Something went wrong on the server; nothing changed. Try again."


class Receiving(Output):
    """`RoomConsumer`'s reading: what a frame asks, done or refused."""

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
        entry: Entry | None = None
        request_id = bot_events.request_id(text_data) if self.json else None
        try:
            entry, message = read_message(text_data, self.commands)
            outcome = await self._handle(entry, message)
            if self.json:
                await self._acknowledge(entry, outcome, request_id)
        except (BadMessage, Invalid, Refused, base.Forbidden, chat.Muted) as error:
            metrics.refused(_refusal(entry, error))
            await self._reply(str(error), request_id)
        except LAYER_ERRORS:
            raise  # the socket closes with 1013 (`__call__`), and the page reconnects
        except Exception:
            await self._unexpected(request_id)

    async def _handle(self, entry: Entry, message: Message) -> base.Outcome | None:
        """What the message's entry says: a spectator's move refused before any database work,
        the move budget spent, then its handler."""
        if entry.sender is not Sender.ANYONE:
            base.refuse_spectator(self.room, self.player, message)  # no database trip
        if entry.budget is Budget.MOVE:
            await self._take_move_budget()
        return await HANDLERS[entry.handler](self, message)

    async def _play(self, message: Message) -> base.Outcome:
        with metrics.move_received():
            outcome = await _play(self.room, self.player, message)
        # The computer's reply, its opening after a rematch, or the Solver bot going on.
        autoplay.schedule(self.room, outcome.game)
        return outcome

    async def _hint(self, message: Command) -> base.Outcome:
        """Off the database thread and within the room's and address's limits (`hints`)."""
        return await ask_hint_async(self.room, self.player, self.address)

    async def _snapshot_on_request(self, message: Command) -> None:
        """`sync`. Not named `_sync`: Channels reads a consumer's `_sync` as "a sync consumer"
        and wraps its `send` for another thread (every handshake failed with the shortcuts off)."""
        self._want_snapshot()

    async def _signal(self, message: Ping | React) -> None:
        """Presence: no move budget (one read: a mute)."""
        await signals.send(self.room, self.player, message, self.address)

    async def _host(self, message: HostCommand) -> None:
        await database_sync_to_async(host.apply)(self.room, self.player, message)

    async def _leave_seat(self, message: Leave) -> None:
        await seat_messages.leave(self)

    async def _take_name(self, message: TakeName) -> None:
        await seat_messages.take_name(self, message)

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
        self, entry: Entry, outcome: base.Outcome | None, request_id: object
    ) -> None:
        """A bot's message taken: `ack` with the game as the message left it (a move that
        changed nothing leaves the version as it was; a `new_game` naming a game already
        replaced names the current one), and a hint's cell."""
        facts: dict[str, object] = {}
        if outcome is not None:
            game = outcome.game
            facts = {"number": game.number, "version": game.version, "status": game.status}
            if "hint" in outcome.applied.summary and entry.value is Command:
                cell = outcome.applied.summary["hint"]
                facts["cell"] = None if cell is None else {"x": cell[0], "y": cell[1]}
        await self._reply_text(bot_events.ack(entry.name, request_id, **facts))

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
        if hover is None or self.player is None:  # a spectator's pointer goes nowhere
            return
        self.last_hover = time.monotonic()
        html = cursor_html(self.player, hover.x, hover.y)
        # A snapshot shows no pointers: the room's kept snapshot stays good (`relay`).
        message = {"type": "room.html", "html": html, "keeps_snapshot": True}
        await get_channel_layer().group_send(self.group, message)


@database_sync_to_async
def _play(room: Room, player: Player | None, message: Message) -> base.Outcome:
    """`dispatch.play` on the database thread, wrapped once: making the wrapper took about
    60 µs of a move that arrives after a pause (docs/performance.md)."""
    return dispatch.play(room, player, message)


def _refusal(entry: Entry | None, error: Exception) -> str:
    """The metrics' reason for a refused message: a few fixed words, never the message."""
    if isinstance(error, TooLarge):
        return "size"
    return "malformed" if entry is None else entry.refusal


_Handle = Callable[[Receiving, Any], Awaitable[base.Outcome | None]]

HANDLERS: dict[Handler, _Handle] = {
    Handler.MOVE: Receiving._play,
    Handler.NEW_GAME: Receiving._play,
    Handler.SET_BOT: Receiving._play,
    Handler.KIND_COMMAND: Receiving._play,
    Handler.HINT: Receiving._hint,
    Handler.SYNC: Receiving._snapshot_on_request,
    Handler.HOVER: Receiving._hover,
    Handler.SIGNAL: Receiving._signal,
    Handler.CHAT: Receiving._chat,
    Handler.HOST: Receiving._host,
    Handler.LEAVE: Receiving._leave_seat,
    Handler.NAME: Receiving._take_name,
}
"""The socket's handler of each name the message table gives (every name: a test checks)."""
