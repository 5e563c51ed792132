"""Shared fixtures. Plain `make test` runs on SQLite and the in-memory channel layer; CI sets
DATABASE_URL and REDIS_URL so the very same tests run on PostgreSQL and channels-redis."""

import asyncio
import os

import pytest
from asgiref.sync import sync_to_async
from django.db import connections

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""`gw0`, `gw1`... under pytest-xdist (`make test` runs three workers), else empty."""


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, this worker's Redis keys are its own: the workers' test databases hand out
    the same room ids, and one channel-layer or cache prefix would let one worker's room hear
    another's. (pytest-django names the test databases per worker itself.)"""
    if not WORKER:
        return
    from django.conf import settings

    layer = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if "prefix" in layer:
        layer["prefix"] = f"{layer['prefix']}_{WORKER}"
    cache = settings.CACHES["default"]
    if "KEY_PREFIX" in cache:
        cache["KEY_PREFIX"] = f"{cache['KEY_PREFIX']}_{WORKER}"


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item):
    """Every async test's event loop is like the server's: its tasks know it
    (`games.server_loop`), so a move a test makes on the database thread is handed to the test's
    loop as a server's is to Daphne's."""
    from games.server_loop import new_event_loop

    return {"server": new_event_loop}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's, and the connection of asgiref's database thread closed before the test
    databases are dropped. Async tests reach the database on that one thread (`sync_to_async`),
    whose connection stays out of psycopg's pool between calls; closing the pool leaves it open,
    and PostgreSQL refuses to drop a database in use ("1 other session")."""
    yield
    asyncio.run(sync_to_async(connections.close_all)())


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test gets its own channel layer: channels-redis binds its locks and pools to the
    event loop that first used them, and every async test runs on a loop of its own."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_kept_games():
    """Each test starts with no game kept in memory (`games.store.kept_games`): a database emptied
    between tests hands the same ids to other rooms."""
    from games.store import kept_games

    kept_games.forget_all()
    yield
    kept_games.forget_all()


@pytest.fixture(autouse=True)
def no_room_cap(settings):
    """Tests create many rooms a minute; the test of the cap itself lowers it again. (Clearing the
    cache instead would flush the Redis database the channel layer shares in CI.)"""
    settings.ROOMS_PER_MINUTE = 100_000
    settings.JOINS_PER_MINUTE = 100_000
    settings.HINTS_PER_MINUTE = 100_000
    settings.REPLAY_BUILDS_PER_MINUTE = 100_000
    settings.HINT_ROOM_SECONDS = 0
    settings.SIGNUPS_PER_HOUR = 100_000
    settings.MOVES_BURST = settings.ADDRESS_MOVES_BURST = (
        100_000  # tests play fast from one address
    )


@pytest.fixture
def shortcuts_on(settings):
    """Every speed shortcut on (`SPEED_SHORTCUTS`), for the tests of the shortcuts themselves:
    CI runs the websocket tests once more with them off, where these would test nothing."""
    settings.SPEED_SHORTCUTS = settings.SPEED_SHORTCUTS_ALL


def pytest_sessionfinish() -> None:
    """The template databases `tests/helpers/servers.py` migrated for this process go with the session."""
    from tests.helpers import servers

    servers.drop_templates()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Browser tests last: Playwright's sync API keeps an event loop running in the main thread
    for the rest of the session, which async tests after it could not start their own in.
    Every test under tests/e2e counts, marked or not (a module that forgot `pytestmark` once
    broke every async test after it). Under xdist (`make test`) the default `load` distribution
    hands tests out in this order, so each worker's browser tests come after its async ones;
    `--dist loadfile` does not keep the order (one CI run's async tests failed after them)."""
    for item in items:
        if "e2e" in item.path.parts and item.get_closest_marker("e2e") is None:
            item.add_marker(pytest.mark.e2e)
    items.sort(key=order)


def order(item: pytest.Item) -> tuple[bool, bool]:
    """Browser tests last, and among them the `long` modules first: the workers take tests in
    this order, a few at a time (`make test`'s `--maxschedchunk`), so the last ones handed out are
    short and both workers end at about the same time. The sort is stable: a module's tests stay
    together, in their order, and its module-scoped servers start once per worker."""
    browser = item.get_closest_marker("e2e") is not None
    return browser, item.get_closest_marker("long") is None
