"""Pages served start to finish on a page thread (`games.patches.django_pages`, the `pages` speed
shortcut) answer as Django's own ASGI handler does, on threads that last."""

import re
import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.db import connections
from django.db.backends.signals import connection_created

from games.patches.django_pages import Pages
from tests.helpers.web import make_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pages() -> Iterator[Pages]:
    """One page thread; its database connection is closed on it before the database goes."""
    handler = Pages(1)
    yield handler
    handler.threads.submit(connections.close_all).result()
    handler.threads.shutdown()


def header(answer: dict, name: bytes) -> list[bytes]:
    return [value for key, value in answer["headers"] if key.lower() == name]


def cookie(answer: dict, name: bytes) -> bytes:
    """`name=value` of the cookie the answer sets."""
    (found,) = [c for c in header(answer, b"set-cookie") if c.startswith(name + b"=")]
    return found.split(b";", 1)[0]


async def ask(app, method: str, path: str, body: bytes = b"", headers=()) -> dict:
    """One request, as Daphne hands it over; the answer's status, headers and whole body (a
    streamed one's last message has no body, which Channels' `HttpCommunicator` refuses)."""
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    talk = ApplicationCommunicator(app, scope)
    await talk.send_input({"type": "http.request", "body": body})
    answer = await talk.receive_output(5)
    parts = []
    while True:
        message = await talk.receive_output(5)
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return {**answer, "body": b"".join(parts)}


async def join(app, code: str, nickname: str) -> dict:
    """The invite page, then its nickname form, as a browser sends them."""
    page = await ask(app, "GET", f"/r/{code}/")
    csrf = cookie(page, b"csrftoken")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"])
    assert page["status"] == 200 and token
    form = urlencode({"csrfmiddlewaretoken": token[1].decode(), "nickname": nickname})
    return await ask(
        app,
        "POST",
        f"/r/{code}/join/",
        form.encode(),
        [
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", csrf),
            (b"origin", b"http://testserver"),
            (b"referer", f"http://testserver/r/{code}/".encode()),
        ],
    )


@pytest.mark.parametrize("path", ["/healthz", "/", "/r/NOPE99/", "/api/rooms/NOPE99"])
async def test_a_page_answers_as_under_djangos_own_handler(pages, path):
    ours, djangos = await ask(pages, "GET", path), await ask(ASGIHandler(), "GET", path)
    assert ours["status"] == djangos["status"]
    assert {key.lower() for key, _ in ours["headers"]} == {
        key.lower() for key, _ in djangos["headers"]
    }
    assert len(ours["body"]) == pytest.approx(len(djangos["body"]), abs=100)  # nonces, tokens


async def test_a_browser_takes_a_seat_through_the_invite_page_and_its_form(pages):
    room = await sync_to_async(make_room)()
    joined = await join(pages, room.code, "Ana")
    assert joined["status"] == 302
    assert header(joined, b"location") == [f"/r/{room.code}/".encode()]
    session = cookie(joined, b"sessionid")
    seated = await ask(pages, "GET", f"/r/{room.code}/", headers=[(b"cookie", session)])
    assert b"Ana" in seated["body"] and b'id="board"' in seated["body"]


async def test_a_form_without_its_token_is_refused_as_django_refuses_it(pages):
    room = await sync_to_async(make_room)()
    refused = await ask(
        pages,
        "POST",
        f"/r/{room.code}/join/",
        b"nickname=Ana",
        [(b"content-type", b"application/x-www-form-urlencoded")],
    )
    assert refused["status"] == 403


async def test_a_static_file_streams_whole(pages):
    answer = await ask(pages, "GET", "/static/games/room.js")
    assert answer["status"] == 200
    assert len(answer["body"]) == int(header(answer, b"content-length")[0]) > 1000


async def served(app) -> tuple[list[int], list[int], int]:
    """Three requests through `app`: the threads `request_started` and `request_finished` ran
    on, and how many database connections were opened."""
    started: list[int] = []
    finished: list[int] = []
    opened: list[str] = []

    def on_start(**_):
        started.append(threading.get_ident())

    def on_finish(**_):
        finished.append(threading.get_ident())

    def on_connect(connection, **_):
        opened.append(connection.vendor)

    signals.request_started.connect(on_start)
    signals.request_finished.connect(on_finish)
    connection_created.connect(on_connect)
    try:
        for _ in range(3):
            assert (await ask(app, "GET", "/r/NOPE99/"))["status"] == 404
    finally:
        signals.request_started.disconnect(on_start)
        signals.request_finished.disconnect(on_finish)
        connection_created.disconnect(on_connect)
    return started, finished, len(opened)


async def test_pages_run_on_one_lasting_thread_and_signal_each_request(pages):
    """Django's handler serves each request on a new thread, with a new database connection;
    a page thread serves them all and keeps its own (SQLite; PostgreSQL's go back to its pool)."""
    our_started, our_finished, our_connections = await served(pages)
    their_started, _, their_connections = await served(ASGIHandler())
    assert len(our_started) == len(our_finished) == 3
    assert set(our_started) == set(our_finished)
    assert len(set(our_started)) == 1
    assert len(set(their_started)) == 3
    if connections["default"].vendor == "sqlite":
        assert (our_connections, their_connections) == (1, 3)
