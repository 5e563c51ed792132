"""Browser tests: Debian's chromium driven by Playwright against a real Daphne subprocess.

pytest-django's `live_server` is WSGI and cannot carry websockets, so the session starts Daphne
itself (see `tests/helpers/servers.py`), on a free port and its own database: a fresh `<name>_e2e_...`
PostgreSQL database when DATABASE_URL is set (as in CI), else a SQLite file in a temporary folder.
REDIS_URL passes through, so CI runs these tests on channels-redis too.

Playwright's sync API runs an event loop in the test thread, so tests never touch the Django ORM;
`GameDatabase` reads the Daphne process's rows directly when a test must know where the mines are.

Every module gets a `site` (its Daphne's address and database): the session's, shared by the
modules of the session, unless the module defines its own (`own_site`), for tests that read a page
every test writes to (the records) or that need another setting than the session's.
"""

import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page

from tests.conftest import skip_or_fail
from tests.helpers import servers
from tests.helpers.servers import GameDatabase

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ROOT = servers.ROOT
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """System chromium, never a downloaded one (the flags are the ones verified on this machine)."""
    if not os.access(CHROMIUM, os.X_OK):
        skip_or_fail(f"{CHROMIUM} is missing: install Debian's chromium (make browser)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="module")
def browser_context_args(browser_context_args: dict[str, Any], site: "Site"):
    """Every context talks to the module's Daphne, so tests can `page.goto("/")`."""
    return {**browser_context_args, "base_url": site.url}


EXPECTED_CONSOLE_ERRORS = re.compile(
    r"Failed to load resource: the server responded with .* 40[04]"
)
"""The 404 page and a rejected form answer with their status; the browser logs that, rightly."""


@pytest.fixture
def expected_console_errors() -> re.Pattern[str]:
    """Console errors a test expects; a module whose servers go away on purpose widens it."""
    return EXPECTED_CONSOLE_ERRORS


@pytest.fixture
def new_context(new_context, expected_console_errors):
    """pytest-playwright's contexts, failing the test on a script error or a console error
    (a Content-Security-Policy violation, an exception in room.js, a failed htmx swap)."""
    errors: list[str] = []

    def record(message) -> None:
        if message.type == "error" and not expected_console_errors.search(message.text):
            errors.append(f"console: {message.text}")

    def make(**kwargs):
        context = new_context(**kwargs)
        context.on("console", record)
        context.on("weberror", lambda error: errors.append(f"page error: {error.error}"))
        return context

    yield make
    assert not errors, "\n".join(errors)


SESSION_SETTINGS = {"RACE_COUNTDOWN_SECONDS": "0.5"}
"""The browser servers' settings that are not production's: a race goes from Start to Go in half
a second, not three, as no test but the countdown's own watches it (tests/e2e/test_race.py's
server counts the real 3 s)."""


def e2e_database_env(tmp: Path, **settings: str) -> dict[str, str]:
    """Environment for a server: its own, freshly created database, and `SESSION_SETTINGS`
    unless `settings` say otherwise."""
    try:
        return servers.migrated_database_env(tmp, "e2e", **{**SESSION_SETTINGS, **settings})
    except servers.ServiceUnavailable as error:
        skip_or_fail(f"{error} (browser tests)")


@pytest.fixture(scope="session")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    env = e2e_database_env(tmp_path_factory.mktemp("e2e"))
    yield env
    servers.drop_database(env)


@dataclass(frozen=True)
class Site:
    """A Daphne the browser tests talk to, and its database."""

    url: str
    db: GameDatabase


def own_site(name: str, **settings: str):
    """A module-scoped `site` fixture: a Daphne and a fresh database of the module's own, for a
    module whose tests read a page every test writes to (the records) or need another setting
    than `SESSION_SETTINGS`. In the module: `site = own_site("records")`. It costs a server start
    (about a second); the session's site serves every other module."""

    @pytest.fixture(scope="module")
    def site(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[Site]:
        tmp = tmp_path_factory.mktemp(name)
        env = e2e_database_env(tmp, **settings)
        try:
            with serving(request, servers.Daphne(env, tmp / "daphne.log")) as server:
                yield Site(server.url, GameDatabase(env))
        finally:
            servers.drop_database(env)

    return site


@contextmanager
def serving(request: pytest.FixtureRequest, server: servers.Daphne) -> Iterator[servers.Daphne]:
    """The server, running; its log on stderr afterwards if a test of the session failed."""
    try:
        with server:
            yield server
    finally:
        if request.session.testsfailed:
            sys.stderr.write(f"\n--- daphne log ({server.log}) ---\n{server.log_tail(20000)}\n")


@pytest.fixture(scope="session")
def live_server_url(
    request: pytest.FixtureRequest, server_env: dict[str, str], tmp_path_factory
) -> Iterator[str]:
    """A real Daphne serving HTTP and websockets, migrated, on a free 127.0.0.1 port."""
    server = servers.Daphne(server_env, tmp_path_factory.mktemp("daphne") / "daphne.log")
    with serving(request, server):
        yield server.url


@pytest.fixture(scope="session")
def session_site(live_server_url: str, server_env: dict[str, str]) -> Site:
    return Site(live_server_url, GameDatabase(server_env))


@pytest.fixture(scope="module")
def site(session_site: Site) -> Site:
    """The session's site; a module that defines its own `site` fixture (`own_site`) gets that."""
    return session_site


@pytest.fixture(scope="module")
def game_db(site: Site) -> GameDatabase:
    return site.db


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


PUBLISH = os.environ.get("PUBLISH_SCREENSHOTS", "").lower() in {"1", "true", "yes"}
"""Set by `make screenshot` alone: tests write only under artifacts/ (ignored by git), so a test
run never leaves the working tree dirty; docs/ changes when someone asks for it."""
TAKE_SCREENSHOTS = PUBLISH or os.environ.get("SCREENSHOTS", "").lower() in {"1", "true", "yes"}
"""Also set by `make screenshot` (SCREENSHOTS=1): screenshots are for people to look at and
assert nothing, so `make test` spends no time on them."""


def screenshot(target: Page | Locator, path: Path, **options: Any) -> None:
    """`target.screenshot(path=path, **options)` under `make screenshot`; nothing otherwise."""
    if TAKE_SCREENSHOTS:
        target.screenshot(path=path, **options)


@pytest.fixture(scope="session")
def publish_screenshot():
    """Copy one artifact to docs/ (committed, shown in the README), under `make screenshot` only."""

    def publish(path: Path, name: str) -> None:
        if not PUBLISH:
            return
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(path, ROOT / "docs" / name)

    return publish
