"""`DATABASE_URL` at start: PostgreSQL gets its pool, a SQLite URL the same options as the default
SQLite file, and any other scheme stops with a message that names it and what is supported.

Each case starts a fresh process, as `make run` would: settings are read once per process.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Connects (the old settings crashed here, in Database.connect) and reports what it got.
PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.db import connection
database = settings.DATABASES["default"]
report = {"engine": database["ENGINE"], "name": str(database["NAME"]),
          "options": database["OPTIONS"], "conn_max_age": database["CONN_MAX_AGE"]}
if database["ENGINE"].endswith("sqlite3"):
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        report["journal_mode"] = cursor.fetchone()[0]
    report["transaction_mode"] = connection.transaction_mode
print(json.dumps(report))
"""


def run(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "SQLITE_PATH"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL=database_url)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def probe(database_url: str) -> dict:
    done = run(database_url, "-c", PROBE)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_sqlite_url_gets_the_default_sqlite_options(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    report = probe(f"sqlite:///{path}")
    assert report["engine"] == "django.db.backends.sqlite3"
    assert report["name"] == str(path)
    assert report["options"]["timeout"] == 20
    assert "pool" not in report["options"]
    assert report["transaction_mode"] == "IMMEDIATE"
    assert report["journal_mode"] == "wal"
    assert report["conn_max_age"] == 600
    assert path.exists()


def test_manage_py_check_passes_with_a_sqlite_url(tmp_path: Path) -> None:
    done = run(
        f"sqlite:///{tmp_path / 'games.sqlite3'}", "manage.py", "check", "--database", "default"
    )
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_a_postgres_url_keeps_its_pool() -> None:
    done = run(
        "postgres://player:secret@127.0.0.1:5432/mines",
        "-c",
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.DATABASES['default'], default=str))",
    )
    assert done.returncode == 0, done.stderr
    database = json.loads(done.stdout)
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert database["OPTIONS"]["pool"]["min_size"] == 1
    assert database["OPTIONS"]["prepare_threshold"] == 5
    assert database["CONN_MAX_AGE"] == 0


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("mysql://player:secret@127.0.0.1:3306/mines", "DATABASE_URL scheme 'mysql'"),
        ("oracle://player:secret@127.0.0.1/mines", "DATABASE_URL scheme 'oracle'"),
        ("nosuchdb://player:secret@127.0.0.1/mines", "DATABASE_URL scheme 'nosuchdb'"),
        ("sqlite://", "names no SQLite file"),
    ],
)
def test_other_urls_stop_with_what_is_supported(url: str, named: str) -> None:
    done = run(url, "manage.py", "check", "--database", "default")
    assert done.returncode != 0
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("django.core.exceptions.ImproperlyConfigured: ")
    assert named in error
    assert "postgres://" in error and "sqlite:///" in error
    assert "secret" not in done.stderr
