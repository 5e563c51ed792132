"""How much a socket's Twisted transport holds that the peer has not taken yet, and cutting it off.

Twisted's `write` never refuses: what the kernel will not take waits in the transport's buffer,
without limit. A peer that never reads (a tiny receive window, a stalled page, a script) makes
every message of its room and every snapshot it asks for pile up in Daphne's memory. Twisted
tells only a registered producer, and only whether more than 64 KiB wait; the byte count is in
`abstract.FileDescriptor`'s private buffers: `dataBuffer` from `offset` on, and `_tempDataLen`
bytes in `_tempDataBuffer`. Twisted is pinned exactly in pyproject.toml and
`tests/web/test_internals.py` checks those attributes on the pinned version.

When the attributes are not there (another transport, a Twisted that moved them), `unsent_bytes`
answers None and no limit applies: the behaviour before the limit, with a warning at the first
socket. Cutting off uses `abortConnection`, public (`ITCPTransport`): `loseConnection` would wait
for the buffer to drain, which a peer that does not read never lets happen, so its memory would
stay taken.

`watch_output` uses only the public producer interface: a socket's next snapshot waits for its
`Drain` (`consumer.SNAPSHOT_BACKLOG_BYTES`), so a peer that asks and does not read is not sent
more.
"""

import asyncio
import logging
from typing import Any

from twisted.internet.defer import Deferred

log = logging.getLogger(__name__)

_warned = False


def unsent_bytes(connection: Any) -> int | None:
    """Bytes written to the connection's transport that the kernel has not taken yet; None
    when the transport does not show them."""
    transport: Any = getattr(connection, "transport", None)
    try:
        waiting = len(transport.dataBuffer) - transport.offset + transport._tempDataLen
    except (AttributeError, TypeError):
        _warn_once(transport)
        return None
    return waiting if isinstance(waiting, int) else None


def _warn_once(transport: Any) -> None:
    global _warned
    if not _warned and transport is not None:
        _warned = True
        log.warning(
            "%s shows no send buffer (dataBuffer, offset, _tempDataLen): the socket output "
            "limit is not enforced (docs/operations.md, Library internals)",
            type(transport).__name__,
        )


def release(connection: Any) -> None:
    """Free what a closed connection still holds, now rather than at the next full collection.

    A connection that was cut off keeps up to the output limit of unsent bytes in its transport,
    and autobahn resolves the protocol's `is_closed` Deferred with the protocol itself: a
    reference cycle (protocol -> Deferred -> protocol) that only the cyclic collector frees, and
    the megabytes of bytes it holds do not count towards the collector's thresholds. Sixty
    sockets cut off again and again took Daphne from 144 to 896 MB that stayed (issue 26). So:
    the buffers of a transport that is gone are emptied, and the cycle is broken. Nothing before
    the connection is lost: then the buffers are still Twisted's to send."""
    transport = getattr(connection, "transport", None)
    if transport is not None and getattr(transport, "disconnected", False):
        transport.dataBuffer, transport.offset = b"", 0
        transport._tempDataBuffer, transport._tempDataLen = [], 0
    closed = getattr(connection, "is_closed", None)
    if isinstance(closed, Deferred) and getattr(closed, "result", None) is connection:
        closed.result = None


def cut_off(connection: Any) -> None:
    """Drop the connection and everything it still holds, at once."""
    transport = getattr(connection, "transport", None)
    if transport is not None:
        transport.abortConnection()


class Drain:
    """Tells when a transport's output has drained, through Twisted's public producer interface
    (`IPushProducer`'s three methods; `registerProducer` checks no declaration).

    A streaming producer registered on a transport is paused when more than its `bufferSize`
    waits unsent, and resumed once all of it has gone. A producer registered before it hears
    every call as before, through this one; except Daphne's upgraded HTTP channel
    (`_upgraded_channel`), which has nothing left to hear."""

    def __init__(self, before: Any) -> None:
        self.before = before
        self.waiters: list[asyncio.Future[None]] = []

    def pauseProducing(self) -> None:  # noqa: N802 (Twisted's name)
        if self.before is not None:
            self.before.pauseProducing()

    def resumeProducing(self) -> None:  # noqa: N802
        if self.before is not None:
            self.before.resumeProducing()
        self._wake()

    def stopProducing(self) -> None:  # noqa: N802 (the connection is gone)
        if self.before is not None:
            self.before.stopProducing()
        self._wake()

    def _wake(self) -> None:
        waiters, self.waiters = self.waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def drained(self) -> None:
        """Until the transport's output has all gone (or the connection has)."""
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        await waiter


def watch_output(connection: Any, threshold: int) -> Drain | None:
    """A `Drain` on the connection's transport, paused above `threshold` unsent bytes; None
    when the transport takes no producer (then nothing waits for it)."""
    transport: Any = getattr(connection, "transport", None)
    if transport is None or not hasattr(transport, "registerProducer"):
        return None
    before = getattr(transport, "producer", None)
    drain = Drain(None if _upgraded_channel(before) else before)
    if before is not None:
        transport.unregisterProducer()
    transport.bufferSize = threshold
    transport.registerProducer(drain, True)
    return drain


def _upgraded_channel(producer: Any) -> bool:
    """Whether `producer` is the HTTP channel Daphne leaves registered on a connection it
    upgraded to a websocket. Its request (the handshake) never ends, and Twisted's `HTTPChannel`
    then only notes a pause: it pauses its own reading only between requests, and passes the
    calls on to a request's producer, which the upgrade's has none of. Held here, it held the
    channel, the handshake's request and its headers, about 4 KB a socket: 2,000 spectators
    were 8 MB (issue 28, docs/performance.md). `_handlingRequest` and `_requestProducer` are
    Twisted's private attributes (`tests/web/test_internals.py` checks them on the pinned
    version); without them the producer is kept, as before."""
    return (
        getattr(producer, "_handlingRequest", None) is True
        and hasattr(producer, "_requestProducer")
        and producer._requestProducer is None
    )
