"""Presence reaches a room a few times a second at most, however many sockets come and go.

Each socket opening or closing used to send the whole roster to every socket of the room, so N
spectators arriving cost about N²/2 frames (1,000 of them: 735k). Now a socket's presence is
counted in the database at once, and this process tells the room at most once per `INTERVAL`:
the first change at once, later ones gathered until the interval is over. The last change is
always told, so every page ends with the right counts.

When only spectators came or went, the room gets just the spectator count
(`Rendering.spectators_html`, swapped by itself); a change in who is online sends the roster.

Spectators are counted in the database by the same step, not one transaction per socket: their
arrivals and departures since the last message are written together just before the count is
read (`spectator_came`, `spectator_left`). A spectator who comes and goes between two messages
costs the database nothing; sockets that reconnect in a loop cost the room a few transactions a
second instead of two each (docs/performance.md, "The memory attack, round two").

With them goes the room's crowd in this process: how many distinct client addresses (an IPv6 /64
as one, `flood.address_key`) its spectator sockets come from, written when it changed. The home
page's "On now" ranks rooms by it, not by sockets, which one address could open by the dozen
(issue 33).
"""

import asyncio
import logging
import weakref
from collections import Counter

from channels.db import database_sync_to_async

from ..broadcast import announce, outbox
from ..kinds.table import Fragment
from ..rooms import presence as rooms_presence
from ..store.models import Room
from .presence import PROCESS, Arrivals, forget_arrival, leave_crowd

log = logging.getLogger(__name__)

INTERVAL = 0.25
"""Seconds between two presence messages of one room from one process."""


class RoomPresence:
    """One room's presence news in this process: what changed, and the task that tells it."""

    def __init__(self, room_id: int, rooms: dict[int, "RoomPresence"]) -> None:
        self.room_id = room_id
        self.rooms = rooms
        self.pending = False
        self.players = False
        """Whether a player's presence changed (the whole roster), not only spectators."""
        self.crowd: Counter[str] = Counter()
        """This process's spectator sockets of the room, per client address."""
        self.arrivals = Arrivals(crowd=self.crowd)
        self.departures = 0
        """Spectator sockets gone whose arrival was written: taken out at the next message."""
        self.crowd_written = 0
        """The crowd (distinct addresses) as last written to the database."""
        self.task: asyncio.Task[None] | None = None
        self.telling = False
        """Whether a message is being written and told (`settle` waits for it)."""

    def changed(self, player: bool) -> None:
        self.pending = True
        self.players = self.players or player
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(
                self._run(), name=f"presence of room {self.room_id}"
            )

    async def _run(self) -> None:
        """Tell the room now, then at most once per interval while changes keep coming."""
        try:
            while self.pending:
                players, self.players, self.pending = self.players, False, False
                arrivals, self.arrivals = self.arrivals, Arrivals(crowd=self.crowd)
                arrivals.written = True
                departures, self.departures = self.departures, 0
                crowd = len(self.crowd)
                changed = None if crowd == self.crowd_written else crowd
                await self._tell(players, arrivals.sockets, departures, changed)
                self.crowd_written = crowd
                await asyncio.sleep(INTERVAL)
        finally:
            self.task = None
            if self.rooms.get(self.room_id) is self and not self.crowd and not self.crowd_written:
                del self.rooms[self.room_id]

    async def _tell(self, players: bool, came: int, left: int, crowd: int | None) -> None:
        self.telling = True
        try:
            await database_sync_to_async(tell_presence)(self.room_id, players, came, left, crowd)
        except Exception:  # the next change tries again; the loop must go on
            log.exception("room %s: presence not told", self.room_id)
        finally:
            self.telling = False


def tell_presence(
    room_id: int, players: bool, came: int = 0, left: int = 0, crowd: int | None = None
) -> None:
    """Spectators' arrivals and departures written, then read and posted to the room's outbox,
    in one step on the database thread, as a join's or a move's news is: so the room hears
    rosters in the order they were read. Sent through the layer after a hop back to the loop, a
    roster read just before a player joined could reach the room after the join's own, newer
    roster, and leave the pages without that player (and their moves' share of the board with
    no place to go) until the next change."""
    if came or left or crowd is not None:
        rooms_presence.spectators_counted(room_id, came, left, PROCESS, crowd)
    try:
        html = presence_html(room_id, players)
    except Room.DoesNotExist:
        return  # deleted since (a bot's DELETE right after its socket closed): nobody to tell
    outbox.send(room_id, html)


def presence_html(room_id: int, players: bool) -> Fragment:
    """The roster, or only the spectator count when only spectators came or went."""
    return announce.roster_html(room_id) if players else announce.spectators_html(room_id)


_rooms_by_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, RoomPresence]]" = (
    weakref.WeakKeyDictionary()
)


def _presence(room_id: int) -> RoomPresence:
    rooms = _rooms_by_loop.setdefault(asyncio.get_running_loop(), {})
    presence = rooms.get(room_id)
    if presence is None:
        presence = rooms[room_id] = RoomPresence(room_id, rooms)
    return presence


def changed(room_id: int, player: bool) -> None:
    """A socket of the room opened or closed (`player`: a seated player's, not a spectator's)."""
    _presence(room_id).changed(player)


def spectator_came(room_id: int, address: str) -> Arrivals:
    """A spectator socket from `address` (`flood.address_key`) opened: counted with the room's
    next message. The socket keeps what this returns and gives it back as it leaves."""
    presence = _presence(room_id)
    presence.arrivals.sockets += 1
    presence.crowd[address] += 1
    presence.changed(player=False)
    return presence.arrivals


def spectator_left(room_id: int, arrivals: Arrivals, address: str) -> None:
    """A spectator socket counted with `arrivals` closed: out with the room's next message."""
    presence = _presence(room_id)
    if not forget_arrival(arrivals):
        presence.departures += 1
    leave_crowd(arrivals, address)
    presence.changed(player=False)


async def settle() -> None:
    """Until no room's presence of this event loop is being written or waits to be: each
    change told, then the tasks stopped in their pause between two messages (tests, before
    their database is emptied: a write that late meets the flush's lock, and deadlocks)."""
    rooms = _rooms_by_loop.get(asyncio.get_running_loop(), {})
    while tasks := [p.task for p in list(rooms.values()) if p.task is not None]:
        busy = [p for p in list(rooms.values()) if p.task is not None and (p.telling or p.pending)]
        if busy:
            await asyncio.sleep(0.005)  # polling a write under way, at most one interval
            continue
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def told(room_id: int) -> None:
    """Until the room's presence changes so far are written and told: for whoever must read the
    counts right after a spectator's socket closed (tests)."""
    presence = _rooms_by_loop.get(asyncio.get_running_loop(), {}).get(room_id)
    if presence is not None and presence.task is not None:
        await asyncio.shield(presence.task)
