"""A room message framed once per process and written straight to each socket's Daphne connection.

Channels' way to send, `await self.send(text_data=html)`, takes every message of every socket
through Channels' and Daphne's reply coroutines, autobahn's framing and autobahn's `sendData`,
which formats the arguments of a debug log line for every frame (colouring them with `click`
when it is installed) whether or not anything logs at debug level. A room message is the same
bytes for every socket of the room: autobahn frames it once (`prepareMessage`, its documented way
to send one message on many connections), and the frame goes to each connection's Twisted
transport, where `sendData` would put it. In a busy room that is a good part of Daphne's CPU per
move, more than `sendPreparedMessage` alone saves, since it still calls `sendData` (the figures
are in docs/performance.md, round four, item 18); what a socket still costs is mostly Twisted's
write.

What Daphne does not hand out is the connection. The ASGI `send` it gives each consumer is
`functools.partial(Server.handle_reply, protocol)`; `connection_of` takes the protocol from there,
and finds None when `send` is anything else (another ASGI server, Channels' test communicator, a
Daphne that builds `send` differently), so those sockets are sent to the usual way.

That partial, the protocol's `state`, `send_queue`, `transport` and `factory`, and the prepared
frame's `payloadHybi` are internals: Daphne, autobahn and Twisted are pinned exactly in
pyproject.toml, and `tests/web/test_framed.py` checks each of them on the pinned versions, so an
upgrade that moves one fails there rather than in a room (docs/operations.md, "Library internals").

Twisted's own `transport.write` buffers the frame, registers the socket with the event loop for
writing, sends on the loop's next turn and unregisters it again: two `epoll_ctl` calls and a loop
turn around each `send` (docs/performance.md, issue 17: about a fifth of a bare Daphne's CPU per
socket). When Twisted holds nothing for a plain-TCP socket, `_write_now` makes the one `send`
at once and leaves only what the kernel did not take to Twisted, which keeps the order. The
transport's `TLS`, `socket`, `connected`, `disconnecting`, `_writeDisconnected`, `dataBuffer`,
`offset` and `_tempDataLen` are Twisted internals, checked in `tests/web/test_framed.py` too.

Autobahn refuses to send a message above the connection's `maxMessagePayloadSize` (Daphne's
`--websocket-max-message-size`, `MESSAGE_LIMIT_BYTES` in every start command), but only on its
own path: a frame written here bypasses that check, so `send` applies the same limit itself.
"""

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from autobahn.websocket.protocol import PreparedMessage
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from django.core.signals import setting_changed

from .switch import shortcut

MESSAGE_LIMIT_BYTES = 1024 * 1024
"""The websocket message size limit, both ways, that the Makefile, the Dockerfile, compose and
the test and bench servers pass to Daphne (`--websocket-max-message-size`, and the same frame
size): Daphne's own default, set on purpose. The largest message the app makes, a lost 50x50
board's snapshot with a full roster, is about half of it (docs/operations.md, "Limits")."""

log = logging.getLogger(__name__)

_last: tuple[str, PreparedMessage | None] | None = None
"""The message framed last (None when it is over the limit): the relay hands the same string to
every socket of a room in turn, so one entry serves them all (the event loop's thread is the
only one that sends). A message framed here was framed with the shortcut on, so the shortcut is
read once per message, not per socket: a setting read per socket was about 2 % of a 100-socket
room's CPU (docs/performance.md)."""


def _forget(*, setting: str, **kwargs: Any) -> None:
    """A test that turns the shortcuts on or off: the next message is framed (or not) anew."""
    global _last
    if setting == "SPEED_SHORTCUTS":
        _last = None


setting_changed.connect(_forget)


def connection_of(send: Callable[..., Any]) -> WebSocketProtocol | None:
    """The Daphne websocket under a consumer's ASGI `send`, if that is what it is."""
    if (
        isinstance(send, partial)
        and getattr(send.func, "__func__", None) is Server.handle_reply
        and len(send.args) == 1
        and isinstance(send.args[0], WebSocketProtocol)
    ):
        return send.args[0]
    return None


_GONE = (WebSocketProtocol.STATE_CLOSING, WebSocketProtocol.STATE_CLOSED)


def send(connection: WebSocketProtocol | None, html: str) -> bool:
    """`html` written to `connection` as one text frame, framed once for every connection it goes
    to. Also True, and nothing written, when the connection is closing or closed: autobahn
    refuses a message then, and Daphne's reply path raises its `Disconnected` until the close is
    complete (a traceback in the log for a socket that merely went away while a room message was
    on its way); the socket's disconnect does the rest. False, and nothing written, when there is
    no connection or it is not open yet, so the caller sends the usual way; also for a message
    above the connection's size limit: the usual way then refuses it as autobahn does
    (`PayloadExceededError`), so the limit is the same on both paths.
    The frame is never compressed: a permessage-deflate connection takes plain frames too."""
    global _last
    if connection is None:
        return False
    framed = _last is not None and _last[0] is html  # so the shortcut was on
    if not framed and not shortcut("frames"):
        return False
    state = getattr(connection, "state", None)
    if state in _GONE:
        return True
    if state != WebSocketProtocol.STATE_OPEN:
        return False
    if not framed:
        _last = (html, _framed(connection, html))
    prepared = _last[1] if _last is not None else None
    if prepared is None:
        return False
    if connection.send_queue:  # autobahn holds frames back: this one queues behind them
        connection.sendPreparedMessage(prepared)
    elif not _write_now(connection.transport, prepared.payloadHybi):
        connection.transport.write(prepared.payloadHybi)
    return True


def _framed(connection: WebSocketProtocol, html: str) -> PreparedMessage | None:
    """`html` framed once for every connection; None when it is over the connection's size
    limit."""
    payload = html.encode()
    if 0 < connection.maxMessagePayloadSize < len(payload):
        log.warning(
            "not framing a message of %d bytes: over the websocket limit of %d",
            len(payload),
            connection.maxMessagePayloadSize,
        )
        return None
    prepared: PreparedMessage = connection.factory.prepareMessage(payload, doNotCompress=True)
    return prepared


def _write_now(transport: Any, frame: bytes) -> bool:
    """`frame` handed to the kernel now, when Twisted holds nothing for this socket (what the
    kernel does not take goes to Twisted, after it); False, and nothing sent, when Twisted must
    write it: TLS, bytes already waiting, a socket closing, or a send that fails (Twisted then
    finds the error its own way)."""
    if (
        getattr(transport, "TLS", True)
        or not getattr(transport, "connected", False)
        or transport.disconnecting
        or transport._writeDisconnected
        or transport._tempDataLen
        or len(transport.dataBuffer) > transport.offset
    ):
        return False
    try:
        sent = transport.socket.send(frame)
    except OSError:  # EAGAIN (the kernel's buffer is full), a reset: Twisted's business
        return False
    if sent < len(frame):
        transport.write(frame[sent:])
    return True
