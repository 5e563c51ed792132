"""The private internals of pinned libraries the app touches (games/patches), checked on the
pinned versions.

Each module of games/patches says why it touches one; these tests fail, by name, when an upgrade
of Daphne, autobahn, Twisted, Channels or Django changes what it relies on.
(`games.patches.daphne_frames` has its own, in `test_framed.py`.) docs/operations.md, "Library
internals", says what to do then.
"""

import asyncio
import gc
import inspect
import re
import socket
import weakref
from types import SimpleNamespace

import pytest
from channels.consumer import AsyncConsumer
from channels.exceptions import StopConsumer
from daphne.ws_protocol import WebSocketProtocol
from django.core.handlers.asgi import ASGIHandler
from twisted.internet import tcp
from twisted.internet.error import ConnectionDone
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.protocol import Protocol
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.python.failure import Failure
from twisted.web.http import HTTPChannel

from games.patches import channels_consumer, daphne_close_codes, django_orm, twisted_backlog
from games.protocol.flood import FLOOD_REASON
from games.store.models import Game, Move
from tests.helpers.web import open_socket


def daphnes_server_close():
    return inspect.unwrap(WebSocketProtocol.serverClose)


@pytest.fixture
def patched(monkeypatch):
    """`daphne_close_codes.install()` on a Daphne as it comes, undone afterwards."""
    monkeypatch.setattr(WebSocketProtocol, "serverClose", daphnes_server_close())
    daphne_close_codes.install()


def close_frame(code: int, reason: bytes = b"") -> bytes:
    return bytes([0x88, 2 + len(reason)]) + code.to_bytes(2, "big") + reason


def closing(reason: str, code: int = 1008) -> dict[str, object]:
    return {"type": "websocket.close", "code": code, "reason": reason}


def test_daphnes_close_and_autobahns_frame_writer_keep_their_shape():
    parameters = inspect.signature(daphnes_server_close()).parameters
    assert list(parameters) == ["self", "code"] and parameters["code"].default is None
    parameters = inspect.signature(WebSocketProtocol.sendCloseFrame).parameters
    assert list(parameters) == ["self", "code", "reasonUtf8", "isReply"]
    assert daphne_close_codes.frame_writer_fits()
    handle_reply = inspect.unwrap(WebSocketProtocol.handle_reply)
    assert list(inspect.signature(handle_reply).parameters) == ["self", "message"]


def test_daphne_alone_still_refuses_the_registered_codes():
    """Why the patch exists; when this fails, an upgrade lets them through and it can go."""
    protocol, wire = open_socket()
    with pytest.raises(Exception, match="invalid close code 1012"):
        daphnes_server_close()(protocol, 1012)
    assert wire.value() == b""


@pytest.mark.parametrize("code", sorted(daphne_close_codes.REGISTERED_SERVER_CODES))
def test_a_registered_code_goes_out_in_a_close_frame(patched, code):
    protocol, wire = open_socket()
    protocol.serverClose(code)
    assert wire.value() == close_frame(code)
    assert protocol.state == WebSocketProtocol.STATE_CLOSING


@pytest.mark.parametrize("code", [1000, 1008])
def test_a_close_the_server_starts_waits_longer_than_a_second_for_the_reply(patched, code):
    """autobahn drops the connection with a reset when the reply is late: a busy browser that
    has not read the close frame yet then reports 1006 instead of the code."""
    protocol, _ = open_socket()
    protocol.closeHandshakeTimeout = 1  # a server factory's default (this test factory: none)
    protocol.serverClose(code)
    assert protocol.closeHandshakeTimeout == daphne_close_codes.CLOSE_HANDSHAKE_SECONDS > 1
    assert protocol.closeHandshakeTimeoutCall is not None


@pytest.mark.parametrize("code", [1000, 4000])
def test_other_codes_are_left_to_daphne(patched, code):
    protocol, wire = open_socket()
    protocol.serverClose(code)
    assert wire.value() == close_frame(code)
    with pytest.raises(Exception, match="invalid close code 1002"):
        open_socket()[0].serverClose(1002)


def test_a_changed_frame_writer_closes_without_a_frame_so_the_page_reconnects(monkeypatch, caplog):
    monkeypatch.setattr(WebSocketProtocol, "serverClose", daphnes_server_close())
    monkeypatch.setattr(WebSocketProtocol, "sendCloseFrame", lambda self, payload: None)
    daphne_close_codes.install()
    assert "sendCloseFrame changed" in caplog.text
    protocol, wire = open_socket()
    protocol.serverClose(1012)
    assert wire.value() == b"" and wire.disconnecting


def test_daphne_alone_drops_the_reason_of_a_close(patched):
    """Why the patch passes reasons on; when this fails, Daphne does and `_with_reasons` can go."""
    protocol, wire = open_socket()
    inspect.unwrap(WebSocketProtocol.handle_reply)(protocol, closing(FLOOD_REASON))
    assert wire.value() == close_frame(1008)


@pytest.mark.parametrize("code", [1008, 4000])
def test_a_close_with_a_reason_sends_it_in_the_frame(patched, code):
    protocol, wire = open_socket()
    protocol.handle_reply(closing(FLOOD_REASON, code))
    assert wire.value() == close_frame(code, FLOOD_REASON.encode())


def test_a_long_reason_is_cut_to_what_a_close_frame_holds_whole_characters_only(patched):
    protocol, wire = open_socket()
    protocol.handle_reply(closing("é" * 100))  # 200 bytes
    assert wire.value() == close_frame(1008, "é".encode() * 61)  # 122 of the 123 bytes


def test_installing_twice_patches_once(patched):
    once = WebSocketProtocol.serverClose
    daphne_close_codes.install()
    assert WebSocketProtocol.serverClose is once


def test_the_asgi_entry_point_installs_the_patch():
    import config.asgi  # noqa: F401  (calls games.patches.install)

    assert WebSocketProtocol.serverClose.lets_registered_codes_through
    assert WebSocketProtocol.handle_reply.passes_close_reasons


def test_the_asgi_entry_point_keeps_the_start_out_of_the_garbage_collector():
    """The modules and objects of the start live as long as the process: frozen, a full
    collection does not walk them (`config.asgi`)."""
    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000


def a_tcp_connection() -> tuple[tcp.Connection, socket.socket]:
    """Twisted's own TCP transport, as Daphne's sockets have it, over a socket pair."""
    ours, theirs = socket.socketpair()
    connection = tcp.Connection(ours, None, reactor=MemoryReactorClock())
    connection.connected = 1
    return connection, theirs


def test_twisteds_send_buffer_keeps_its_shape():
    """`twisted_backlog` reads the unsent bytes from `abstract.FileDescriptor`'s `dataBuffer`,
    `offset` and `_tempDataLen`: written and not yet taken by the kernel, they show there."""
    connection, theirs = a_tcp_connection()
    with theirs, connection.socket:
        assert twisted_backlog.unsent_bytes(SimpleNamespace(transport=connection)) == 0
        connection.write(b"x" * 1000)
        connection.write(b"y" * 500)
        assert twisted_backlog.unsent_bytes(SimpleNamespace(transport=connection)) == 1500
        connection.doWrite()  # the kernel takes it: the buffer empties
        assert twisted_backlog.unsent_bytes(SimpleNamespace(transport=connection)) == 0
        assert ITCPTransport.providedBy(connection)  # `cut_off`'s abortConnection is public


class Producer:
    """What Daphne leaves registered on an upgraded socket's transport (its HTTP channel)."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def pauseProducing(self) -> None:  # noqa: N802
        self.heard.append("pause")

    def resumeProducing(self) -> None:  # noqa: N802
        self.heard.append("resume")

    def stopProducing(self) -> None:  # noqa: N802
        self.heard.append("stop")


def test_a_drain_says_when_the_output_has_gone_and_the_producer_before_it_still_hears():
    """`twisted_backlog.watch_output`: Twisted pauses a streaming producer past its
    `bufferSize` and resumes it once the buffer is empty; the snapshot waits for that."""
    connection, theirs = a_tcp_connection()
    before = Producer()
    connection.registerProducer(before, True)
    holder = SimpleNamespace(transport=connection)

    async def scenario() -> None:
        drain = twisted_backlog.watch_output(holder, 1000)
        assert drain is not None and connection.producer is drain
        waiting = asyncio.ensure_future(drain.drained())
        connection.write(b"x" * 1001)  # past the threshold: paused
        await asyncio.sleep(0)
        assert not waiting.done() and before.heard == ["pause"]
        connection.doWrite()  # the kernel takes it all: resumed
        await asyncio.wait_for(waiting, 1)
        assert before.heard == ["pause", "resume"]
        assert twisted_backlog.unsent_bytes(holder) == 0

    with theirs, connection.socket:
        asyncio.run(scenario())


def test_a_drain_lets_go_of_the_http_channel_daphne_upgraded():
    """Daphne leaves the handshake's HTTP channel registered on an upgraded connection, its
    request never ended; as a producer it does nothing any more, and the drain does not keep it
    (nor its request and headers) alive. A channel still between requests is kept."""
    connection, theirs = a_tcp_connection()
    holder = SimpleNamespace(transport=connection)
    upgraded = HTTPChannel()
    upgraded._handlingRequest = True  # as Daphne's upgrade leaves it: the request never ends
    assert upgraded._requestProducer is None  # Twisted's attributes the patch reads
    connection.registerProducer(upgraded, True)
    gone = weakref.ref(upgraded)
    del upgraded

    async def scenario() -> None:
        drain = twisted_backlog.watch_output(holder, 1000)
        assert drain is not None and drain.before is None
        gc.collect()
        assert gone() is None
        connection.unregisterProducer()
        idle = HTTPChannel()  # between requests: its pause stops its reading, so it stays
        connection.registerProducer(idle, True)
        assert twisted_backlog.watch_output(holder, 1000).before is idle

    with theirs, connection.socket:
        asyncio.run(scenario())


def test_a_drain_wakes_its_waiters_when_the_connection_goes():
    connection, theirs = a_tcp_connection()
    holder = SimpleNamespace(transport=connection)

    async def scenario() -> None:
        drain = twisted_backlog.watch_output(holder, 1000)
        assert drain is not None
        waiting = asyncio.ensure_future(drain.drained())
        await asyncio.sleep(0)
        connection.protocol = Protocol()
        connection.connectionLost(Failure(ConnectionDone()))  # Twisted stops its producer
        await asyncio.wait_for(waiting, 1)

    with theirs:
        asyncio.run(scenario())


def test_a_transport_without_the_buffer_means_no_limit_and_one_warning(monkeypatch, caplog):
    monkeypatch.setattr(twisted_backlog, "_warned", False)
    elsewhere = SimpleNamespace(transport=StringTransport())
    assert twisted_backlog.unsent_bytes(elsewhere) is None
    assert twisted_backlog.unsent_bytes(elsewhere) is None
    assert twisted_backlog.unsent_bytes(None) is None  # Channels' test client: no connection
    warnings = [r.getMessage() for r in caplog.records if r.name == twisted_backlog.__name__]
    assert len(warnings) == 1 and "StringTransport" in warnings[0]


def test_channels_call_still_sets_up_only_what_serve_does():
    """`channels_consumer.serve` stands in for Channels' `AsyncConsumer.__call__` for a
    consumer with no channel of its own: the scope, the layer (None) and `send` set, then every
    message of `receive` dispatched until `StopConsumer`. An upgrade that makes Channels'
    `__call__` set up or call anything more fails here."""
    source = inspect.getsource(AsyncConsumer.__call__).split("\n", 1)[1]
    assert re.findall(r"(?:await )?([\w.]+)\(", source) == [
        "get_channel_layer",
        "self.channel_layer.new_channel",  # only with a layer: not the room consumer's case
        "functools.partial",
        "async_to_sync",  # only for a sync consumer
        "await_many_dispatch",
        "await_many_dispatch",
    ]
    assert re.findall(r"self\.(\w+) =", source) == [
        "scope",
        "channel_layer",
        "channel_name",  # with a layer
        "channel_receive",  # with a layer
        "base_send",
        "base_send",
    ]
    assert "except StopConsumer" in source


def test_serve_dispatches_every_message_until_the_consumer_stops():
    heard = []

    class Consumer(AsyncConsumer):
        channel_layer_alias = None

        async def dispatch(self, message):  # no database here: the room consumer's dispatch
            await channels_consumer.dispatch(self, message)

        async def websocket_receive(self, message):
            heard.append(message["text"])

        async def websocket_disconnect(self, message):
            raise StopConsumer

    messages = iter(
        [
            {"type": "websocket.receive", "text": "a"},
            {"type": "websocket.receive", "text": "b"},
            {"type": "websocket.disconnect", "code": 1000},
        ]
    )

    async def receive():
        return next(messages)

    consumer = Consumer()
    asyncio.run(channels_consumer.serve(consumer, {"type": "websocket"}, receive, print))
    assert heard == ["a", "b"]
    assert consumer.scope == {"type": "websocket"} and consumer.base_send is print
    assert consumer.channel_layer is None


def test_channels_dispatch_still_only_closes_old_connections_before_the_handler():
    """`channels_consumer.dispatch` stands in for Channels' `AsyncConsumer.dispatch` less its
    `aclose_old_connections()`. An upgrade that makes Channels' do anything more fails here."""
    source = inspect.getsource(AsyncConsumer.dispatch).split("\n", 1)[1]  # past the `def`
    calls = re.findall(r"(?:await )?([\w.]+)\(", source)
    assert calls == [
        "getattr",
        "get_handler_name",
        "aclose_old_connections",
        "handler",
        "ValueError",
    ]


def test_djangos_asgi_handle_still_does_only_what_pages_does():
    """`django_pages.Pages.handle` stands in for `ASGIHandler.handle`: it reads the body, makes
    and answers the request in Django's sync mode on a page thread, and sends the answer. An
    upgrade that makes Django's do anything more fails here."""
    source = inspect.getsource(ASGIHandler.handle).split("\n", 1)[1]
    assert re.findall(r"(?:await )?([\w.]+)\(", source) == [
        "self.read_body",
        "closing",
        "set_script_prefix",
        "get_script_prefix",
        "signals.request_started.asend",
        "self.create_request",
        "body_file.close",
        "self.send_response",
        "sync_to_async",
        "RequestProcessed",
        "asyncio.TaskGroup",
        "tg.create_task",
        "self.listen_for_disconnect",
        "self.run_get_response",
        "self.send_response",
        "len",
        "signals.request_finished.asend",
        "sync_to_async",
    ]
    assert "response.block_size = self.chunk_size" in inspect.getsource(
        ASGIHandler.run_get_response
    )


def test_djangos_orm_still_gives_the_converters_and_casts_rowsql_reads_and_writes_through():
    """`games.patches.django_orm`: the column a converter is called with, the converters (the
    JSON state's own `from_db_value` among them) and a field's cast type, on pinned Django."""
    state = Game._meta.get_field("state")
    converters, column = django_orm.read_converters(Game, state)
    assert column.target is state and column.alias == Game._meta.db_table
    assert any(
        getattr(convert, "__func__", None) is type(state).from_db_value for convert in converters
    )
    assert "int" in django_orm.cast_type(Move._meta.get_field("seq")).lower()
