"""Browser tests: Debian's chromium driven by Playwright against a real Daphne subprocess.

pytest-django's `live_server` is WSGI and cannot carry websockets, so the session starts Daphne
itself (see `tests/servers.py`), on a free port and its own database: a fresh `<name>_e2e_...`
PostgreSQL database when DATABASE_URL is set (as in CI), else a SQLite file in a temporary folder.
REDIS_URL passes through, so CI runs these tests on channels-redis too.

Playwright's sync API runs an event loop in the test thread, so tests never touch the Django ORM;
`GameDatabase` reads the Daphne process's rows directly when a test must know where the mines are.
"""

import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page

from tests import servers
from tests.conftest import skip_or_fail
from tests.servers import GameDatabase

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


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], live_server_url: str):
    """Every context talks to the session's Daphne, so tests can `page.goto("/")`."""
    return {**browser_context_args, "base_url": live_server_url}


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


def e2e_database_env(tmp: Path) -> dict[str, str]:
    """Environment for the server: its own, freshly created database."""
    try:
        return servers.migrated_database_env(tmp, "e2e")
    except servers.ServiceUnavailable as error:
        skip_or_fail(f"{error} (browser tests)")


@pytest.fixture(scope="session")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    env = e2e_database_env(tmp_path_factory.mktemp("e2e"))
    yield env
    servers.drop_database(env)


@pytest.fixture(scope="session")
def live_server_url(
    request: pytest.FixtureRequest, server_env: dict[str, str], tmp_path_factory
) -> Iterator[str]:
    """A real Daphne serving HTTP and websockets, migrated, on a free 127.0.0.1 port."""
    server = servers.Daphne(server_env, tmp_path_factory.mktemp("daphne") / "daphne.log")
    try:
        with server:
            yield server.url
    finally:
        if request.session.testsfailed:
            sys.stderr.write(f"\n--- daphne log ({server.log}) ---\n{server.log_tail(20000)}\n")


@pytest.fixture(scope="session")
def game_db(server_env: dict[str, str]) -> GameDatabase:
    return GameDatabase(server_env)


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
