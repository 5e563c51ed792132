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


def cut_off(connection: Any) -> None:
    """Drop the connection and everything it still holds, at once."""
    transport = getattr(connection, "transport", None)
    if transport is not None:
        transport.abortConnection()
