"""The browser tests' servers and screenshots, for test modules and helpers alike (never imported
from a conftest): a module's own site (`own_site`), the session servers' settings, the console
errors a page may rightly log, and `screenshot`, which only `make screenshot` takes."""

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page

from tests.helpers import servers
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import GameDatabase

# Debian's chromium and the flags verified on this machine; never a downloaded browser.
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
SCREENSHOTS = servers.ROOT / "artifacts" / "screenshots"

EXPECTED_CONSOLE_ERRORS = re.compile(
    r"Failed to load resource: the server responded with .* 40[04]"
)
"""The 404 page and a rejected form answer with their status; the browser logs that, rightly."""


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
