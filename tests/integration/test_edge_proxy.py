"""deploy/nginx.conf in front of the container's Daphne command, both real processes here.

What the proxy sends decides what the app trusts: the client address that the room and admin
limits count (X-Forwarded-For), the scheme behind SSL redirects and secure cookies
(X-Forwarded-Proto), and the host and port that CSRF compares a form's Origin with (Host).
"""

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import servers
from tests.helpers.clients import HttpSession, LiveClient, running
from tests.helpers.deploy import dockerfile_daphne_options
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne, Nginx

pytestmark = pytest.mark.integration

ROOMS_PER_MINUTE = 10


@pytest.fixture(scope="module")
def database_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    try:
        servers.nginx_binary()
        env = servers.migrated_database_env(tmp_path_factory.mktemp("edge"), "edge")
    except servers.ServiceUnavailable as error:
        skip_or_fail(f"{error} (edge proxy tests)")
    try:
        yield env
    finally:
        servers.drop_database(env)


def daphne(database_env: dict[str, str], folder: Path, **overrides: str) -> Daphne:
    """The Dockerfile's Daphne command on this test's settings; fresh
    rate-limit counters each time (server_env gives every server a cache prefix of its own)."""
    fresh = {"CACHE_KEY_PREFIX": servers.unique_name("edge")}  # database_env's is the module's
    env = servers.server_env(**{**database_env, **fresh, **overrides})
    return Daphne(env, folder / "daphne.log", options=dockerfile_daphne_options())


def fetch(url: str, headers: dict[str, str] | None = None, body: bytes | None = None):
    """(status, headers) without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    request = urllib.request.Request(url, data=body, headers=headers or {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=15) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


RATE_WINDOW_SECONDS = 3600
"""The servers' limit "minute", lengthened: a burst rarely straddles a window's end, so the wait
for a fresh one (`wait_for_a_fresh_window`) rarely waits."""


def wait_for_a_fresh_window(needed: float = 15) -> None:
    """The room limit counts per window of the clock: keep a burst inside one."""
    left = RATE_WINDOW_SECONDS - time.time() % RATE_WINDOW_SECONDS
    if left < needed:
        time.sleep(left + 0.1)  # bounded: at most `needed` seconds


LIMITS = {
    "ROOMS_PER_MINUTE": str(ROOMS_PER_MINUTE),
    "RATE_WINDOW_SECONDS": str(RATE_WINDOW_SECONDS),
}


def rooms_claiming_addresses(url: str) -> list[int]:
    """One more room than the limit, each request claiming another address."""
    wait_for_a_fresh_window()
    return [
        fetch(
            f"{url}/api/rooms",
            {"Content-Type": "application/json", "X-Forwarded-For": f"10.9.{n}.1"},
            b'{"preset": "beginner"}',
        )[0]
        for n in range(ROOMS_PER_MINUTE + 1)
    ]


def test_a_spoofed_forwarded_for_does_not_escape_the_room_limit(database_env, tmp_path):
    """Each request claims another address; nginx, the trusted proxy (as in compose), replaces
    the claim with the peer's, so the eleventh room in a minute is refused (before: 30 of 30
    were created)."""
    with (
        daphne(database_env, tmp_path, TRUSTED_PROXIES="127.0.0.1", **LIMITS) as app,
        Nginx([app.port], tmp_path / "nginx.log") as proxy,
    ):
        codes = rooms_claiming_addresses(proxy.url)
    assert codes == [201] * ROOMS_PER_MINUTE + [429], proxy.log_tail()


def test_a_daphne_reached_directly_believes_forwarded_for_only_from_trusted_proxies(
    database_env, tmp_path
):
    """The image's command exposed without nginx: a client's X-Forwarded-For is not believed
    (before, with --proxy-headers: 12 rooms against a limit of 10), a TRUSTED_PROXIES peer's is."""
    with daphne(database_env, tmp_path / "direct", **LIMITS) as app:
        direct = rooms_claiming_addresses(app.url)
    with daphne(
        database_env, tmp_path / "trusting", TRUSTED_PROXIES="127.0.0.0/8", **LIMITS
    ) as app:
        trusting = rooms_claiming_addresses(app.url)
    assert direct == [201] * ROOMS_PER_MINUTE + [429]
    assert trusting == [201] * (ROOMS_PER_MINUTE + 1)


def answer(url: str, headers: dict[str, str] | None = None, body: bytes | None = None):
    """(status, Content-Type, body text)."""
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def test_nginx_answers_its_own_errors_under_the_api_in_json(database_env, tmp_path):
    """nginx takes bodies up to the app's own limit (2.5 MB; it refused past 64 KiB with an HTML
    413), and its own errors under /api/ (a body past that, no process answering) are JSON like
    the app's; pages keep nginx's HTML."""
    json_body = {"Content-Type": "application/json"}
    padded = b'{"preset": "beginner", "padding": "' + b"x" * 100_000 + b'"}'
    with (
        daphne(database_env, tmp_path) as app,
        Nginx([app.port], tmp_path / "nginx.log") as proxy,
    ):
        past_64k = answer(f"{proxy.url}/api/rooms", json_body, padded)
        too_big = answer(f"{proxy.url}/api/rooms", json_body, b"[" + b"0," * 1_400_000 + b"0]")
    with Nginx([servers.free_port()], tmp_path / "down.log") as proxy:  # nothing listens there
        down = answer(f"{proxy.url}/api/rooms/abc")
        page = answer(f"{proxy.url}/")
    assert past_64k[0] == 400 and "padding" in json.loads(past_64k[2])["error"]
    assert too_big[:2] == (413, "application/json")
    assert json.loads(too_big[2]) == {"error": "The body is too large: at most 2,621,440 bytes."}
    assert down[:2] == (502, "application/json") and json.loads(down[2])["error"]
    assert page[0] == 502 and page[1].startswith("text/html")


def test_forms_work_through_the_proxy_on_any_port(database_env, tmp_path):
    """The proxy listens on a port other than 80 and no CSRF_TRUSTED_ORIGINS is set: the form's
    Origin (with the port) matches only if the Host that reaches Django keeps the port."""
    with (
        daphne(database_env, tmp_path, CSRF_TRUSTED_ORIGINS="") as app,
        Nginx([app.port], tmp_path / "nginx.log") as proxy,
    ):
        browser = HttpSession(proxy.url)
        code = browser.create_room("Ana")
        status, page, _ = browser.request(f"/r/{code}/")
    assert status == 200 and 'id="board"' in page


def test_behind_tls_the_balancers_scheme_passes_through(database_env, tmp_path):
    """A TLS load balancer says X-Forwarded-Proto: https. With BEHIND_TLS=true nginx passes it
    on and the page is served; if nginx overwrote it with its own `http`, Django would redirect
    to https for ever. Without the header, plain HTTP is redirected."""
    with (
        daphne(database_env, tmp_path, BEHIND_TLS="true") as app,
        Nginx([app.port], tmp_path / "tls.log", behind_tls=True) as proxy,
        Nginx([app.port], tmp_path / "plain.log", behind_tls=False) as plain_proxy,
    ):
        through_tls, _ = fetch(f"{proxy.url}/", {"X-Forwarded-Proto": "https"})
        plain, plain_headers = fetch(f"{proxy.url}/")
        claimed, claimed_headers = fetch(f"{plain_proxy.url}/", {"X-Forwarded-Proto": "https"})
        health, _ = fetch(f"{app.url}/healthz")
    assert through_tls == 200
    assert plain == 301 and plain_headers["Location"].startswith("https://")
    # nginx not told it sits behind TLS: a client's claim of https is replaced by nginx's http.
    assert claimed == 301 and claimed_headers["Location"].startswith("https://")
    # Health checks ask each process over plain HTTP and must not be redirected.
    assert health == 200


def test_behind_tls_cookies_are_secure_and_hsts_stays_on_this_host(database_env, tmp_path):
    with (
        daphne(database_env, tmp_path, BEHIND_TLS="true") as app,
        Nginx([app.port], tmp_path / "tls.log", behind_tls=True) as proxy,
    ):
        status, headers = fetch(f"{proxy.url}/", {"X-Forwarded-Proto": "https"})
    assert status == 200
    csrf_cookie = next(c for c in headers.get_all("Set-Cookie") if c.startswith("csrftoken="))
    assert "Secure" in csrf_cookie
    assert headers["Strict-Transport-Security"] == "max-age=31536000"


async def test_every_socket_of_a_room_reaches_one_process_through_the_proxy(database_env, tmp_path):
    """Room sockets are hashed on the room's path (`upstream minesweeper_rooms`): players and
    spectators of a room land on one of two Daphnes, which frames each move once and keeps the
    room's game (docs/operations.md, "Capacity"); a move reaches them all."""
    with (
        daphne(database_env, tmp_path / "a") as a,
        daphne(database_env, tmp_path / "b") as b,
        Nginx([a.port, b.port], tmp_path / "nginx.log") as proxy,
    ):
        host = HttpSession(proxy.url)
        code = await asyncio.to_thread(host.create_room, "Ana")
        guest = HttpSession(proxy.url)
        await asyncio.to_thread(guest.join, code, "Bo")
        ws_url = proxy.url.replace("http://", "ws://", 1)
        clients = [
            LiveClient("ana", ws_url, code, host.cookie_header),
            LiveClient("bo", ws_url, code, guest.cookie_header),
            *(LiveClient(f"watcher {n}", ws_url, code) for n in range(3)),
        ]
        async with running(*clients):
            assert await clients[0].send(action="reveal", x=4, y=4)
            for client in clients:
                await client.wait_for_version(1)
        opened = [server.log_tail(200_000).count(f"WSCONNECT /ws/r/{code}/") for server in (a, b)]
        assert sorted(opened) == [0, len(clients)], opened


def test_the_access_log_leaves_out_query_strings(database_env, tmp_path):
    """A bot's websocket carries its seat's token as ?token=: it must not reach the disk."""
    with (
        daphne(database_env, tmp_path) as app,
        Nginx([app.port], tmp_path / "nginx.log") as proxy,
    ):
        status, _ = fetch(f"{proxy.url}/healthz?token=not-for-the-log")
        assert status == 200
        logged = logged_line(proxy.access_log, "GET /healthz HTTP/1.1")
    assert "GET /healthz HTTP/1.1" in logged
    assert "not-for-the-log" not in logged


def logged_line(log: Path, line: str, timeout: float = 5.0) -> str:
    """The access log once it holds `line`: nginx writes it in the request's last phase, after
    the response may already have reached the client (CI read an empty log once)."""
    deadline = time.monotonic() + timeout
    logged = log.read_text() if log.exists() else ""
    while line not in logged and time.monotonic() < deadline:
        time.sleep(0.02)
        logged = log.read_text() if log.exists() else ""
    return logged
