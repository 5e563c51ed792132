"""The ORM's read and cast steps, used by `games.store.rowsql`'s hand-written move SQL.

`rowsql` writes a move's statements once as SQL (issue 17: building them through querysets was
more than half of a move's CPU) and must still read rows and type values exactly as the ORM
does. Django publishes no API for that, so three of its compiler's steps are used here, and only
here: `Field.get_col` (the column expression a converter is given), the converters
`DatabaseOperations.get_db_converters` and `Field.get_db_converters` return (JSON parsed, times
made aware), and `Field.cast_db_type` (the SQL type a bare parameter is cast to). Django is pinned
exactly for them (`PINNED`); `tests/web/test_internals.py` fails by name if one moves, and
`tests/web/test_rowsql.py` compares every row read and written this way with the ORM's own.
"""

from typing import Any

from django.db import connection, models


def read_converters(model: type[models.Model], field: models.Field) -> tuple[list[Any], Any]:
    """What the ORM's compiler applies to `field`'s column as it reads a row of `model`: the
    converters (possibly none) and the column expression they are called with."""
    column = field.get_col(model._meta.db_table)
    return connection.ops.get_db_converters(column) + field.get_db_converters(connection), column


def cast_type(field: models.Field) -> str:
    """The SQL type a value for `field` is cast to where a bare parameter would be text (in a
    SELECT list, on PostgreSQL)."""
    return str(field.cast_db_type(connection))
