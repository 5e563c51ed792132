"""Room messages framed once and written straight to Daphne's websockets (`games.patches.daphne_frames`).

The connection is found in the `send` the pinned Daphne really builds, and what is written is the
text frame autobahn would have sent; anything else falls back to Channels' send. Real Daphne
processes carry every room message this way in the cluster and browser tests.
"""

import asyncio
import inspect
from collections import deque
from functools import partial

import pytest
from autobahn.exception import Disconnected
from autobahn.twisted.websocket import WebSocketServerFactory
from autobahn.websocket.protocol import PreparedMessage
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.testing import StringTransport

from config.asgi import application
from games.live import sockets as live_sockets
from games.patches import daphne_frames as framed
from tests.helpers.web import ORIGIN, TIMEOUT, open_socket

pytestmark = pytest.mark.usefixtures("shortcuts_on")


async def test_the_connection_is_found_in_the_send_daphne_gives_a_consumer():
    given = []

    async def application(scope, receive, send):
        given.append(send)

    server = Server(application=application, endpoints=["tcp:port=0:interface=127.0.0.1"])
    protocol = WebSocketProtocol()
    server.connections = {protocol: {}}  # as `Server.run` sets it up
    server.create_application(protocol, {"type": "websocket"})
    await server.connections[protocol]["application_instance"]
    assert framed.connection_of(given[0]) is protocol


@pytest.mark.django_db(transaction=True)
async def test_a_room_socket_daphne_serves_finds_its_connection(room):
    """The whole websocket stack (origin check, session, routing, Channels' consumer) passes
    Daphne's `send` through unchanged, so the room's messages do go out framed once."""
    server = Server(application=application, endpoints=["tcp:port=0:interface=127.0.0.1"])
    protocol = WebSocketProtocol()
    server.connections = {protocol: {}}
    scope = {
        "type": "websocket",
        "path": f"/ws/r/{room.code}/",
        "query_string": b"watch=1",
        "headers": [(b"origin", ORIGIN.encode()), (b"host", b"127.0.0.1:8000")],
        "client": ["127.0.0.1", 50000],
        "server": ["127.0.0.1", 8000],
        "subprotocols": [],
    }
    inbox = server.create_application(protocol, scope)
    task = server.connections[protocol]["application_instance"]
    server.connections = {}  # Daphne's replies then go nowhere: there is no real socket here
    inbox.put_nowait({"type": "websocket.connect"})
    async with asyncio.timeout(TIMEOUT):
        while not (sockets := live_sockets.open_sockets()):
            await asyncio.sleep(0.01)
    assert [socket.connection for socket in sockets] == [protocol]
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(task, TIMEOUT)


def test_any_other_send_has_no_connection():
    server = Server(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])

    async def send(message):
        pass

    assert framed.connection_of(send) is None
    assert framed.connection_of(partial(server.handle_reply, object())) is None
    assert framed.connection_of(partial(print, WebSocketProtocol())) is None


def test_the_autobahn_internals_it_writes_through_keep_their_shape():
    """Each private part of the pinned autobahn and Twisted that `send` reads or calls, by name:
    an upgrade that moves one fails here rather than in a room. (The partial it finds the
    connection in is checked above, on the `send` Daphne really builds.)"""
    protocol = WebSocketProtocol()
    protocol.factory = WebSocketServerFactory()
    wire = StringTransport()
    protocol.makeConnection(wire)
    assert protocol.transport is wire
    assert isinstance(protocol.send_queue, deque) and not protocol.send_queue
    assert protocol.state == WebSocketProtocol.STATE_CONNECTING
    states = [getattr(WebSocketProtocol, f"STATE_{s}") for s in ("OPEN", "CLOSING", "CLOSED")]
    assert len(set(states)) == 3 and protocol.state not in states

    assert list(inspect.signature(protocol.factory.prepareMessage).parameters) == [
        "payload",
        "isBinary",
        "doNotCompress",
    ]
    assert list(inspect.signature(WebSocketProtocol.sendPreparedMessage).parameters) == [
        "self",
        "preparedMsg",
    ]
    prepared = protocol.factory.prepareMessage("<p>é</p>".encode(), doNotCompress=True)
    assert isinstance(prepared, PreparedMessage)
    assert isinstance(prepared.payloadHybi, bytes)

    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.sendPreparedMessage(prepared)
    protocol.sendMessage("<p>é</p>".encode())  # autobahn's own way, for comparison
    assert wire.value() == prepared.payloadHybi * 2


@pytest.mark.parametrize("size", [5, 200, 70_000])
def test_every_open_socket_gets_the_same_text_frame(size):
    html = "é" + "x" * (size - 2)  # 2 bytes in UTF-8: the length is counted in bytes
    sockets = [open_socket() for _ in range(3)]
    for protocol, _ in sockets:
        assert framed.send(protocol, html)
    payload = html.encode()
    if len(payload) < 126:
        header = bytes([0x81, len(payload)])
    elif len(payload) < 2**16:
        header = bytes([0x81, 126]) + len(payload).to_bytes(2, "big")
    else:
        header = bytes([0x81, 127]) + len(payload).to_bytes(8, "big")
    assert [wire.value() for _, wire in sockets] == [header + payload] * 3


@pytest.mark.parametrize("state", [WebSocketProtocol.STATE_CLOSING, WebSocketProtocol.STATE_CLOSED])
def test_a_closing_socket_gets_nothing_and_is_not_left_to_the_usual_send(state):
    """The usual send would raise autobahn's `Disconnected` (logged as a traceback per socket)."""
    protocol, wire = open_socket()
    protocol.state = state
    assert framed.send(protocol, "<p>late</p>")
    assert wire.value() == b""
    with pytest.raises(Disconnected):
        protocol.sendMessage(b"<p>late</p>")


def test_a_missing_or_unopened_socket_is_left_to_the_usual_send():
    protocol, wire = open_socket()
    protocol.state = WebSocketProtocol.STATE_CONNECTING
    assert not framed.send(protocol, "<p>early</p>")
    assert not framed.send(None, "<p>early</p>")
    assert wire.value() == b""


def test_a_frame_waits_behind_frames_autobahn_holds_back():
    protocol, wire = open_socket()
    protocol.send_queue.append((b"earlier", True))  # a frame sent `sync`: the rest wait a turn
    assert framed.send(protocol, "<p>later</p>")
    assert wire.value() == b"earlier"
    assert [data for data, _ in protocol.send_queue] == [bytes([0x81, 12]) + b"<p>later</p>"]


def test_each_message_is_framed_for_itself():
    protocol, wire = open_socket()
    first, second = "".join(["<p>", "a", "</p>"]), "".join(["<p>", "b", "</p>"])
    framed.send(protocol, first)
    framed.send(protocol, second)
    framed.send(protocol, first)
    assert wire.value() == b"".join(bytes([0x81, 8]) + m.encode() for m in (first, second, first))


def test_turning_the_shortcut_off_holds_for_a_message_framed_already(settings):
    """The shortcut is read once per message (`_last`), so a change of it must drop the frame
    kept: the same text is then left to the usual send."""
    protocol, wire = open_socket()
    text = "<p>same</p>"
    assert framed.send(protocol, text)
    settings.SPEED_SHORTCUTS = frozenset()
    assert not framed.send(protocol, text)
    assert wire.value() == bytes([0x81, 11]) + text.encode()


class Plain:
    """A plain-TCP transport as `_write_now` reads it, over one end of a socket pair."""

    TLS = False
    connected = True
    disconnecting = False
    _writeDisconnected = False

    def __init__(self, sock) -> None:
        self.socket = sock
        self.dataBuffer, self.offset, self._tempDataLen = b"", 0, 0
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def test_the_twisted_internals_it_sends_through_keep_their_shape():
    """The pinned Twisted's TCP connection has every attribute `_write_now` reads, as it reads
    them: plain TCP, connected, nothing buffered."""
    import socket

    from twisted.internet import tcp

    ours, theirs = socket.socketpair()
    with ours, theirs:
        connection = tcp.Connection(ours, None)
        connection.connected = True
        assert connection.TLS is False and connection.socket is ours
        assert not connection.disconnecting and not connection._writeDisconnected
        assert (connection.dataBuffer, connection.offset, connection._tempDataLen) == (b"", 0, 0)
        assert framed._write_now(connection, b"now")
        assert theirs.recv(100) == b"now"
        connection._tempDataBuffer.append(b"held")  # as `write` leaves it for the loop's next turn
        connection._tempDataLen = 4
        assert not framed._write_now(connection, b"later")  # so this one must wait behind it


def test_a_frame_goes_to_the_kernel_at_once_when_twisted_holds_nothing():
    import socket

    ours, theirs = socket.socketpair()
    with ours, theirs:
        transport = Plain(ours)
        assert framed._write_now(transport, b"frame")
        assert theirs.recv(100) == b"frame" and transport.written == []
        transport._tempDataLen = 3
        assert not framed._write_now(transport, b"later")
        transport._tempDataLen, transport.TLS = 0, True
        assert not framed._write_now(transport, b"tls")
        assert transport.written == []


def test_what_the_kernel_does_not_take_is_left_to_twisted_in_order():
    class Short:
        def send(self, data):
            return 2

    transport = Plain(Short())
    assert framed._write_now(transport, b"abcdef")
    assert transport.written == [b"cdef"]
