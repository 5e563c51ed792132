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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import servers
from tests.helpers.e2e.site import (
    CHROMIUM,
    CHROMIUM_ARGS,
    EXPECTED_CONSOLE_ERRORS,
    PUBLISH,
    SCREENSHOTS,
    Site,
    e2e_database_env,
    serving,
)
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import GameDatabase

ROOT = servers.ROOT


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


@pytest.fixture(scope="session")
def publish_screenshot():
    """Copy one artifact to docs/ (committed, shown in the README), under `make screenshot` only."""

    def publish(path: Path, name: str) -> None:
        if not PUBLISH:
            return
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(path, ROOT / "docs" / name)

    return publish
