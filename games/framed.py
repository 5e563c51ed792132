"""A room message framed once per process and written straight to each socket's Daphne connection.

Channels' way to send, `await self.send(text_data=html)`, takes every message of every socket
through Channels' and Daphne's reply coroutines and autobahn's framing. A room message is the
same bytes for every socket of the room, and autobahn, which Daphne serves websockets with, has a
documented way to send one message to many connections: `prepareMessage` once, then
`sendPreparedMessage` on each connection. With 100 sockets in a room that is about 1.3 ms less
CPU per move (12.6 against 13.9 ms, docs/performance.md); what a socket still costs is mostly
Twisted's write.

What Daphne does not hand out is the connection. The ASGI `send` it gives each consumer is
`functools.partial(Server.handle_reply, protocol)`; `connection_of` takes the protocol from there,
and finds None when `send` is anything else (another ASGI server, Channels' test communicator, a
Daphne that builds `send` differently), so those sockets are sent to the usual way.
`tests/web/test_framed.py` checks the pinned Daphne's `send` against it.
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from autobahn.websocket.protocol import PreparedMessage
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol

_last: tuple[str, PreparedMessage] | None = None
"""The message framed last: the relay hands the same string to every socket of a room in turn,
so one entry serves them all (the event loop's thread is the only one that sends)."""


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


def send(connection: WebSocketProtocol | None, html: str) -> bool:
    """`html` written to `connection` as one text frame, framed once for every connection it goes
    to; False, and nothing written, when there is no connection or it is not open (closing, or
    closed: Daphne's reply path drops messages to those), so the caller sends the usual way."""
    global _last
    if connection is None or connection.state != WebSocketProtocol.STATE_OPEN:
        return False
    if _last is None or _last[0] is not html:
        _last = (html, connection.factory.prepareMessage(html.encode()))
    connection.sendPreparedMessage(_last[1])
    return True
