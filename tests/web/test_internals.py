"""The private internals of pinned libraries the app touches, checked on the pinned versions.

Each module that touches one says why; these tests fail, by name, when an upgrade of Daphne,
autobahn, Twisted, asgiref, Channels or Django changes what it relies on (`games.patches.twisted_backlog`: Twisted's
send buffer). (`games.patches.daphne_frames` has its own, in `test_framed.py`.) docs/operations.md, "Library internals", says what to do then.
"""

import asyncio
import gc
import inspect
import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from autobahn.twisted import websocket as autobahn_websocket
from autobahn.twisted.websocket import WebSocketAdapterProtocol
from channels.consumer import AsyncConsumer
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings as django_settings
from django.db import DEFAULT_DB_ALIAS, connections
from twisted.internet import tcp
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.testing import MemoryReactorClock, StringTransport

from games.patches import channels_consumer, daphne_close_codes, daphne_reads, twisted_backlog
from games.patches.asgiref_loop import server_loop

from .test_framed import open_socket


def daphnes_server_close():
    return inspect.unwrap(WebSocketProtocol.serverClose)


@pytest.fixture
def patched(monkeypatch):
    """`daphne_close_codes.install()` on a Daphne as it comes, undone afterwards."""
    monkeypatch.setattr(WebSocketProtocol, "serverClose", daphnes_server_close())
    daphne_close_codes.install()


def close_frame(code: int) -> bytes:
    return bytes([0x88, 2]) + code.to_bytes(2, "big")


def test_daphnes_close_and_autobahns_frame_writer_keep_their_shape():
    parameters = inspect.signature(daphnes_server_close()).parameters
    assert list(parameters) == ["self", "code"] and parameters["code"].default is None
    parameters = inspect.signature(WebSocketProtocol.sendCloseFrame).parameters
    assert list(parameters) == ["self", "code", "reasonUtf8", "isReply"]
    assert daphne_close_codes.frame_writer_fits()


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


def test_installing_twice_patches_once(patched):
    once = WebSocketProtocol.serverClose
    daphne_close_codes.install()
    assert WebSocketProtocol.serverClose is once


def test_the_asgi_entry_point_installs_the_patch():
    """The close codes always (a safety touch); the reader only with its shortcut on."""
    import config.asgi  # noqa: F401  (calls games.live.shutdown.install)

    assert WebSocketProtocol.serverClose.lets_registered_codes_through
    reads = "reads" in django_settings.SPEED_SHORTCUTS
    assert getattr(WebSocketProtocol.dataReceived, "skips_debug_line", False) is reads


def test_the_asgi_entry_point_keeps_the_start_out_of_the_garbage_collector():
    """The modules and objects of the start live as long as the process: frozen, a full
    collection does not walk them (`config.asgi`)."""
    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000


@pytest.fixture
def autobahns_reader(monkeypatch):
    """Daphne's protocol with the `dataReceived` it inherits from autobahn, restored after."""
    monkeypatch.setattr(WebSocketProtocol, "dataReceived", WebSocketAdapterProtocol.dataReceived)


def a_protocol(fed: list) -> WebSocketProtocol:
    """Daphne's protocol with no connection: its parser records what it is fed."""
    protocol = WebSocketProtocol.__new__(WebSocketProtocol)
    protocol.peer = "tcp:127.0.0.1:1"
    protocol._dataReceived = fed.append
    return protocol


def test_autobahns_reader_still_only_logs_and_parses(autobahns_reader):
    assert daphne_reads.reader_fits()


@pytest.mark.usefixtures("shortcuts_on")
def test_incoming_bytes_go_to_the_parser_without_the_debug_line(autobahns_reader, monkeypatch):
    def no_formatting(*args):
        raise AssertionError("the debug line's arguments were formatted")

    monkeypatch.setattr(autobahn_websocket, "hltype", no_formatting)
    daphne_reads.install()
    daphne_reads.install()  # twice: patched once
    fed: list[bytes] = []
    a_protocol(fed).dataReceived(b"\x81\x02hi")
    assert fed == [b"\x81\x02hi"]
    assert WebSocketProtocol.dataReceived.skips_debug_line
    with pytest.raises(AssertionError, match="formatted"):  # what autobahn's own does
        WebSocketAdapterProtocol.dataReceived(a_protocol([]), b"")


@pytest.mark.usefixtures("shortcuts_on")
def test_a_changed_reader_is_left_alone_with_a_warning(monkeypatch, caplog):
    def changed(protocol, data):
        protocol.count_bytes(data)
        protocol._dataReceived(data)

    monkeypatch.setattr(WebSocketProtocol, "dataReceived", changed)
    daphne_reads.install()
    assert WebSocketProtocol.dataReceived is changed
    assert "dataReceived changed" in caplog.text


@pytest.mark.parametrize("thread_sensitive", [True, False])
async def test_a_sync_to_async_thread_knows_its_event_loop(thread_sensitive):
    """asgiref notes the loop in `SyncToAsync.threadlocal`, which `games.patches.asgiref_loop` reads."""

    def inside():
        local = SyncToAsync.threadlocal
        return local.main_event_loop, local.main_event_loop_pid, server_loop()

    loop, pid, found = await sync_to_async(inside, thread_sensitive=thread_sensitive)()
    assert loop is asyncio.get_running_loop()
    assert pid == os.getpid()
    assert found is loop


def test_a_plain_thread_works_for_no_loop():
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(server_loop).result() is None
    assert server_loop() is None


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


def test_a_transport_without_the_buffer_means_no_limit_and_one_warning(monkeypatch, caplog):
    monkeypatch.setattr(twisted_backlog, "_warned", False)
    elsewhere = SimpleNamespace(transport=StringTransport())
    assert twisted_backlog.unsent_bytes(elsewhere) is None
    assert twisted_backlog.unsent_bytes(elsewhere) is None
    assert twisted_backlog.unsent_bytes(None) is None  # Channels' test client: no connection
    warnings = [r.getMessage() for r in caplog.records if r.name == twisted_backlog.__name__]
    assert len(warnings) == 1 and "StringTransport" in warnings[0]


def test_channels_consumer_entry_still_sets_only_what_serve_sets():
    """`channels_consumer.serve` stands in for Channels' `AsyncConsumer.__call__` (without its
    `await_many_dispatch`): it sets the attributes that one sets for a consumer without a
    channel layer. An upgrade that sets another fails here, naming it."""
    source = inspect.getsource(AsyncConsumer.__call__)
    assigned = set(re.findall(r"self\.(\w+) =", source))
    assert assigned == {"scope", "channel_layer", "channel_name", "channel_receive", "base_send"}
    assert "channel_name" not in inspect.getsource(channels_consumer.serve)  # a layer's only


def test_djangos_connection_keeps_what_the_move_write_uses():
    """`games.patches.django_cursor` writes on the driver's cursor under Django's own error
    wrapping, transaction state and query log (tests/web/test_rowsql.py runs it)."""
    wrapper = connections[DEFAULT_DB_ALIAS]
    for name in ("connection", "autocommit", "wrap_database_errors", "queries_log"):
        assert hasattr(wrapper, name), name
    assert callable(wrapper.validate_no_broken_transaction)
    assert isinstance(type(wrapper).queries_logged, property)
