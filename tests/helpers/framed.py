"""A Daphne websocket protocol on a Twisted string transport, handshake done, to read its frames.

Moved out of tests/web/test_framed.py (issue 34): test modules share helpers from here, never from
each other."""

from autobahn.twisted.websocket import WebSocketServerFactory
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.testing import StringTransport


def open_socket() -> tuple[WebSocketProtocol, StringTransport]:
    """A websocket as after its handshake, writing into memory."""
    protocol = WebSocketProtocol()
    protocol.factory = WebSocketServerFactory()
    wire = StringTransport()
    protocol.makeConnection(wire)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.closeHandshakeTimeout = 0  # no timer left on the reactor
    return protocol, wire
