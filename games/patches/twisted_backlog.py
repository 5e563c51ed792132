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
"""

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
