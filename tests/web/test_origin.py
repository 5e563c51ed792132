"""The room socket opens only for pages of this very site: scheme, host and port (issue 14)."""

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.live.origin import same_origin
from tests.helpers.environment import ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


def scope(origin: str | None, host: str | None, **more) -> dict:
    headers = [(b"origin", origin.encode())] if origin is not None else []
    headers += [(b"host", host.encode())] if host is not None else []
    return {"type": "websocket", "headers": headers, **more}


async def opens(room, *headers: tuple[bytes, bytes]) -> bool:
    communicator = WebsocketCommunicator(
        application, f"/ws/r/{room.code}/?watch=1", headers=list(headers)
    )
    connected, _ = await communicator.connect()
    if connected:
        await communicator.disconnect()
    return connected


async def test_another_port_of_the_same_host_is_refused(room):
    site = (b"host", b"127.0.0.1:8000")
    assert not await opens(room, (b"origin", b"http://127.0.0.1:9999"), site)
    assert await opens(room, (b"origin", b"http://127.0.0.1:8000"), site)


async def test_the_tests_origin_without_a_host_header_is_still_accepted(room):
    """WebsocketCommunicator sends no Host: the Origin's host must then be an allowed host."""
    assert await opens(room, (b"origin", ORIGIN.encode()))
    assert not await opens(room, (b"origin", b"http://evil.example"))


@pytest.mark.parametrize(
    ("origin", "host", "accepted"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", False),
        ("http://127.0.0.1", "127.0.0.1:8000", False),
        ("http://127.0.0.1", "127.0.0.1", True),
        ("http://127.0.0.1:80", "127.0.0.1", True),
        ("http://localhost:8000", "127.0.0.1:8000", False),
        ("http://evil.example:8000", "evil.example:8000", False),  # not an allowed host
        ("http://[::1]:8000", "[::1]:8000", True),
        ("null", "127.0.0.1:8000", False),
        ("http://127.0.0.1:notaport", "127.0.0.1:8000", False),
        ("ftp://127.0.0.1:8000", "127.0.0.1:8000", False),
        (None, "127.0.0.1:8000", False),
    ],
)
def test_origin_must_be_the_requests_own_scheme_host_and_port(origin, host, accepted):
    assert same_origin(scope(origin, host)) is accepted


def test_the_scheme_is_checked_where_the_request_says_it(settings):
    assert not same_origin(scope("https://127.0.0.1:8000", "127.0.0.1:8000", scheme="ws"))
    assert same_origin(scope("https://127.0.0.1:8000", "127.0.0.1:8000", scheme="wss"))
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind_tls = scope("http://127.0.0.1", "127.0.0.1")
    behind_tls["headers"].append((b"x-forwarded-proto", b"https"))
    assert not same_origin(behind_tls)
    behind_tls["headers"][0] = (b"origin", b"https://127.0.0.1")
    assert same_origin(behind_tls)


def test_csrf_trusted_origins_are_accepted(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.org", "https://*.example.net"]
    assert same_origin(scope("https://play.example.org", "127.0.0.1:8000"))
    assert same_origin(scope("https://eu.example.net", "127.0.0.1:8000"))
    assert not same_origin(scope("http://play.example.org", "127.0.0.1:8000"))
    assert not same_origin(scope("https://play.example.org:8443", "127.0.0.1:8000"))
