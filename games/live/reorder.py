"""A room's moves handed on in version order, whichever process's copy comes first.

With several processes a move reaches a process's sockets two ways: its own moves at once, after
the commit (`broadcast.local.hear_here`), the others' through the channel layer (Redis). A move committed
here just after another process's can overtake that one's copy on its way through Redis, and
sockets here would hear version 6 before 5: pages and bots take that for a lost message and ask
for a snapshot (measured: 112 inversions in 6,454 frames in a co-op room on two processes).

`Reorder` holds a version that comes early until the ones before it arrive, or until
`HOLD_SECONDS` pass or `HOLD_MESSAGES` wait (the gap is then real: a message was lost, and
clients resync as before). A version older than one already handed on comes too late to be in
order, and is dropped: its sockets saw the gap and resync. Messages without a version (rosters,
pointers, hints) pass at once; a new game's versions start again from 1.

No clock and no I/O here: the caller says what time it is (`relay` uses the event loop's).
"""

from dataclasses import dataclass, field
from typing import Any

HOLD_SECONDS = 0.5
"""How long an early version waits for the ones before it. A Redis hop between processes takes a
few milliseconds when they are idle, but on a busy two-core machine (two Daphnes, Redis,
PostgreSQL) 150 ms still let a few dozen versions out as gaps in 1,600 moves; 0.5 s let none
(tests/integration/test_cluster.py). Only a message really lost waits it all: one that is merely
late ends the wait when it comes, so a room's latency pays only for real reordering."""
HOLD_MESSAGES = 64
"""How many early versions of a room may wait at once; past this they all go on in order."""

Order = tuple[int, int]
"""(game number, version) of a move's message."""


@dataclass
class Reorder:
    """One room's messages, in version order per game (see the module's docstring)."""

    last: Order | None = None
    """The last version handed on; None before the first."""
    held: dict[int, tuple[float, Any]] = field(default_factory=dict)
    """Early messages by version (of game `last[0]`), with when each arrived."""

    def arrive(self, order: Order | None, message: Any, now: float) -> list[Any]:
        """What to hand on now that `message` (of version `order`, None when it has none)
        came: maybe nothing, maybe it and the held ones it lets through, in order."""
        if order is None:
            return [message]
        number, version = order
        if self.last is None:  # the room's first here: nothing to wait for
            self.last = order
            return [message]
        out = []
        if number > self.last[0]:  # a new game: the old one's held moves go first
            out = self._release()
            self.last = (number, 0)
        if number < self.last[0] or version <= self.last[1] or version in self.held:
            return out  # too late, or twice: its sockets have resynced
        self.held[version] = (now, message)
        out += self._consecutive()
        if len(self.held) > HOLD_MESSAGES:
            out += self._release()
        return out

    def expire(self, now: float) -> list[Any]:
        """The held messages whose wait is over, in order, with those behind them."""
        due = self.due()
        return self._release() if due is not None and due <= now else []

    def due(self) -> float | None:
        """When the oldest held message's wait ends; None when nothing is held."""
        if not self.held:
            return None
        return min(at for at, _ in self.held.values()) + HOLD_SECONDS

    def _consecutive(self) -> list[Any]:
        """The held messages that now follow the last one handed on without a gap."""
        assert self.last is not None
        out = []
        while (self.last[1] + 1) in self.held:
            self.last = (self.last[0], self.last[1] + 1)
            out.append(self.held.pop(self.last[1])[1])
        return out

    def _release(self) -> list[Any]:
        """Everything held, in version order, gaps and all: the wait for the missing is over."""
        if not self.held:
            return []
        assert self.last is not None
        versions = sorted(self.held)
        self.last = (self.last[0], versions[-1])
        out = [self.held[version][1] for version in versions]
        self.held.clear()
        return out
