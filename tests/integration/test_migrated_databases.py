"""`servers.migrated_database_env`: every server's database is a copy of one migrated once per
test process, so each must have the whole schema and share no rows with another."""

from pathlib import Path

import pytest

from tests.helpers import servers
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import GameDatabase

pytestmark = pytest.mark.integration

SESSION = (
    "INSERT INTO django_session (session_key, session_data, expire_date) VALUES ({p}, {p}, {p})"
)


def test_each_migrated_database_has_the_schema_and_rows_of_its_own(tmp_path: Path):
    try:
        first = servers.migrated_database_env(tmp_path / "one", "one")
        second = servers.migrated_database_env(tmp_path / "two", "two")
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    try:
        one, two = GameDatabase(first), GameDatabase(second)
        one.execute(SESSION, "k" * 32, "data", "2100-01-01 00:00:00+00")
        assert one.query("SELECT COUNT(*) FROM django_session") == [(1,)]
        assert two.query("SELECT COUNT(*) FROM django_session") == [(0,)]
        for database in (one, two):  # the app's own tables and its last migration are there
            assert database.query("SELECT COUNT(*) FROM games_room") == [(0,)]
            applied = database.query("SELECT name FROM django_migrations WHERE app = {p}", "games")
            assert len(applied) == len(list((servers.ROOT / "games" / "migrations").glob("0*.py")))
    finally:
        servers.drop_database(first)
        servers.drop_database(second)
