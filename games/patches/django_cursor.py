"""A move's UPDATE and INSERT on the database driver's own cursor (the `rowsql` speed shortcut).

`games.rowsql` writes a move through Django's `atomic` and cursor wrapper, or, with this
shortcut, through the driver's cursor under the connection Django manages: on a move that
arrives after a pause, as a player's do, Django's transaction and cursor layers cost 0.2 ms of
the move's 1 ms (docs/performance.md, issue 17 round three). Errors still come out as Django's
(`wrap_database_errors`), a broken transaction is still refused, and queries are still logged
where Django would log them.

`connection.connection`, `autocommit`, `wrap_database_errors`, `validate_no_broken_transaction`,
`queries_logged` and `queries_log` are Django's internals: `tests/web/test_internals.py`
(`test_djangos_connection_keeps_what_the_move_write_uses`) and `tests/web/test_rowsql.py`
(SQLite here, PostgreSQL in CI) fail when an upgrade moves them.
"""

import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django.db import connection


def write(statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
    """The statements on the driver's cursor, in one transaction: each after the first only if
    the one before it changed a row; whether the last did. Inside an `atomic` block they join
    its transaction; outside one, SQLite's are wrapped in BEGIN IMMEDIATE ... COMMIT (rolled
    back on any error) and PostgreSQL's single statement commits by itself, as Django's
    autocommit would. Database errors come out as Django's (`wrap_database_errors`)."""
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    native = connection.connection
    begin = connection.vendor == "sqlite" and connection.autocommit
    with connection.wrap_database_errors:
        cursor = native.cursor()
        try:
            if begin:
                _execute(cursor, _BEGIN, ())
            changed = all(_execute(cursor, sql, values) == 1 for sql, values in statements)
            if begin:
                _execute(cursor, "COMMIT", ())
        except BaseException:
            if begin:
                native.rollback()
            raise
        finally:
            cursor.close()
    return changed


_BEGIN = "BEGIN IMMEDIATE"
"""What Django's SQLite backend starts an `atomic` block with under `transaction_mode`
IMMEDIATE (config/settings.py): the write lock is taken at once, as the UPDATE would."""


def _execute(cursor: Any, sql: str, values: Sequence[Any]) -> int:
    """One statement; the rows it changed. Logged as Django's debug cursor logs them (DEBUG,
    the tests' query counts)."""
    started = time.monotonic()
    cursor.execute(_native_sql(sql, connection.vendor), values)
    if connection.queries_logged:
        seconds = time.monotonic() - started
        connection.queries_log.append({"sql": sql, "time": f"{seconds:.3f}"})
    return int(cursor.rowcount)


@lru_cache(maxsize=64)
def _native_sql(sql: str, vendor: str) -> str:
    """The driver's own placeholders: SQLite's `?` where Django's wrapper turns `%s` into them
    on every call (the SQL here has no other `%`)."""
    return sql.replace("%s", "?") if vendor == "sqlite" else sql
