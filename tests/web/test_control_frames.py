"""Control frames (ping, pong, close) counted against the socket's budget and its address's
(`games.patches.autobahn_control_frames`, `games.protocol.flood.ControlFrames`; issue 33, item 1).

Frames go through the pinned autobahn's own parser into a Daphne websocket writing into memory;
the internals the patch relies on are checked by name, so an upgrade that moves one fails here.
A real Daphne under a ping flood: tests/integration/test_ping_flood.py.
"""

import inspect
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from daphne.ws_protocol import WebSocketProtocol

from config.asgi import application
from games.patches import autobahn_control_frames
from games.protocol import flood
from games.protocol.flood import (
    ADDRESS_CONTROL_FLOOD_REASON,
    ADDRESS_CONTROL_FRAMES,
    CONTROL_FLOOD_REASON,
    CONTROL_FRAMES,
)
from tests.helpers.environment import ORIGIN
from tests.helpers.web import TIMEOUT, connect, make_room, open_socket

PING, PONG, CLOSE = 0x9, 0xA, 0x8
ORIGIN_HEADER = [(b"origin", ORIGIN.encode())]


@pytest.fixture
def unpatched(monkeypatch):
    """autobahn's `processControlFrame` as it comes (the entry point patched it on import)."""
    original = inspect.unwrap(WebSocketProtocol.processControlFrame)
    monkeypatch.setattr(WebSocketProtocol, "processControlFrame", original)


@pytest.fixture
def counted(unpatched):
    """The patch installed afresh, undone afterwards."""
    autobahn_control_frames.install(flood.ControlFrames)


def client_frame(opcode: int, payload: bytes = b"") -> bytes:
    """A client's frame, masked as RFC 6455 asks (a zero mask leaves the payload as is)."""
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def server_frames(wire) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of every frame written, none over 125 bytes (control frames)."""
    data, frames = wire.value(), []
    while data:
        length = data[1] & 0x7F
        frames.append((data[0] & 0x0F, data[2 : 2 + length]))
        data = data[2 + length :]
    return frames


def socket_from(address: str):
    protocol, wire = open_socket()
    protocol.client_addr = [address, 50000]  # what Daphne's onConnect sets
    return protocol, wire


def test_autobahn_and_daphne_keep_what_the_patch_relies_on():
    assert autobahn_control_frames.fits()
    source = inspect.getsource(inspect.unwrap(WebSocketProtocol.processData))
    assert "self.onFrameEnd()" in source
    source = inspect.getsource(WebSocketProtocol.onFrameEnd)
    assert "self.processControlFrame()" in source
    assert "self.client_addr" in inspect.getsource(WebSocketProtocol.onConnect)
    protocol, _ = open_socket()
    assert protocol.data == b""


def test_autobahn_alone_answers_every_ping(unpatched):
    """Why the patch exists: no limit of autobahn's own. When this fails, it may have one."""
    protocol, wire = socket_from("203.0.113.1")
    protocol.dataReceived(client_frame(PING, b"hi") * 200)
    assert server_frames(wire) == [(PONG, b"hi")] * 200


def test_a_ping_flood_gets_its_budget_of_pongs_then_a_1008_close(counted):
    protocol, wire = socket_from("203.0.113.2")
    protocol.dataReceived(client_frame(PING, b"hi") * 200)  # one write, as the attack sent
    frames = server_frames(wire)
    pongs = len(frames) - 1  # the burst, and what came back while they were read
    assert CONTROL_FRAMES.count <= pongs <= CONTROL_FRAMES.count + 4
    assert frames[:-1] == [(PONG, b"hi")] * pongs
    assert frames[-1] == (CLOSE, (1008).to_bytes(2, "big") + CONTROL_FLOOD_REASON.encode())
    assert CONTROL_FLOOD_REASON == "Too many control frames: a burst of 20, then 2 a second."
    assert wire.disconnecting  # nothing more is read, and the connection goes once it is out
    protocol.dataReceived(client_frame(PING, b"hi"))
    assert len(server_frames(wire)) == len(frames)


@pytest.mark.parametrize("opcode", [PONG, PING])
def test_pongs_count_as_pings_do(counted, opcode):
    protocol, wire = socket_from("203.0.113.3")
    protocol.dataReceived(client_frame(opcode) * (CONTROL_FRAMES.count + 1))
    assert server_frames(wire)[-1][0] == CLOSE and wire.disconnecting


def test_a_close_frame_past_the_budget_gets_1008_not_its_reply(counted):
    protocol, wire = socket_from("203.0.113.4")
    protocol.dataReceived(client_frame(PONG) * CONTROL_FRAMES.count)
    protocol.dataReceived(client_frame(CLOSE, (1000).to_bytes(2, "big")))
    assert server_frames(wire) == [
        (CLOSE, (1008).to_bytes(2, "big") + CONTROL_FLOOD_REASON.encode())
    ]


def test_a_keepalive_within_the_budget_is_answered_and_the_socket_stays(counted):
    protocol, wire = socket_from("203.0.113.5")
    protocol.dataReceived(client_frame(PING, b"1") + client_frame(PONG))
    protocol.dataReceived(client_frame(PING, b"2"))
    assert server_frames(wire) == [(PONG, b"1"), (PONG, b"2")]
    assert protocol.state == WebSocketProtocol.STATE_OPEN and not wire.disconnecting


def test_an_address_spending_socket_after_socket_is_closed_by_its_address_budget(counted):
    """Each socket stays inside its own budget; together they pass the address's."""
    each, sent = CONTROL_FRAMES.count - 1, 0
    for _ in range(3 * ADDRESS_CONTROL_FRAMES.count // each):
        protocol, wire = socket_from("203.0.113.6")
        protocol.dataReceived(client_frame(PONG) * each)
        sent += each
        if wire.disconnecting:
            break
    reason = ADDRESS_CONTROL_FLOOD_REASON.encode()
    assert server_frames(wire) == [(CLOSE, (1008).to_bytes(2, "big") + reason)]
    assert sent > ADDRESS_CONTROL_FRAMES.count  # not before the address had spent its burst
    assert len(reason) <= 123  # what a close frame holds
    other, wire = socket_from("198.51.100.6")  # another address keeps its own
    other.dataReceived(client_frame(PING))
    assert server_frames(wire) == [(PONG, b"")]


def test_the_socket_budget_is_the_socket_s_own(counted):
    for _ in range(2):
        protocol, wire = socket_from("203.0.113.7")
        protocol.dataReceived(client_frame(PONG) * CONTROL_FRAMES.count)
        assert not wire.disconnecting


def test_installing_twice_wraps_once(counted):
    once = WebSocketProtocol.processControlFrame
    autobahn_control_frames.install(flood.ControlFrames)
    assert WebSocketProtocol.processControlFrame is once


def test_a_changed_autobahn_is_left_alone_with_a_warning(monkeypatch, caplog):
    monkeypatch.setattr(WebSocketProtocol, "processControlFrame", lambda self, frame: None)
    autobahn_control_frames.install(flood.ControlFrames)
    assert "processControlFrame changed" in caplog.text
    assert not getattr(WebSocketProtocol.processControlFrame, "counts_control_frames", False)


def test_the_asgi_entry_point_installs_it():
    import config.asgi  # noqa: F401  (calls games.patches.install)

    assert WebSocketProtocol.processControlFrame.counts_control_frames


@pytest.mark.django_db(transaction=True)
async def test_an_address_that_spent_its_budget_is_refused_new_sockets_before_any_lookup():
    room = await sync_to_async(make_room)()
    refused = None
    while refused != ADDRESS_CONTROL_FLOOD_REASON:  # socket after socket, until the address's
        spender = flood.ControlFrames("203.0.113.8")
        while (refused := spender.refusal(time.monotonic())) is None:
            pass
    socket = WebsocketCommunicator(application, f"/ws/r/{room.code}/", headers=ORIGIN_HEADER)
    socket.scope["client"] = ("203.0.113.8", 50000)
    assert (await socket.connect(timeout=TIMEOUT))[0]  # accepted, to say why, then closed
    closed = await socket.receive_output(timeout=TIMEOUT)
    assert closed == {
        "type": "websocket.close",
        "code": 1008,
        "reason": ADDRESS_CONTROL_FLOOD_REASON,
    }
    other = await connect(room)  # another address is served as ever
    await other.disconnect()
