"""A row read as the ORM reads it, with its SQL made once: for the lookups every page, socket
and move makes (a room by its code or id, a room's newest game, a seat by its token).

`Room.objects.filter(code=code).first()` compiles its query anew on each call: on the
development machine 300-500 µs, against 25 µs for SQLite to run it (docs/performance.md, issue
34). Here the SELECT is made once per model and field list from the model's own metadata, values
go in as the fields would prepare them, and rows come back through the converters the ORM's
compiler would apply (found through `games.patches.django_orm`, the one place that touches the
ORM's internals) and `Model.from_db`: JSON, time zones and types as through the ORM, on SQLite
and PostgreSQL alike (tests/web/test_rowsql.py compares the two). `games.store.rowsql` writes a
move's statements the same way.
"""

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from django.db import connection, models

from ..patches import django_orm


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


# The `vendor` arguments below only key the caches: quoting and locking differ per database.


@cache
def _first_sql(
    model: type[models.Model], names: tuple[str, ...], newest: str, vendor: str, locked: bool
) -> str:
    """SELECT every column of `model`'s row whose fields `names` equal the parameters, the one
    with the highest `newest` where several may (none: at most one can), optionally locked."""
    meta = model._meta
    columns = ", ".join(quote(field.column) for field in meta.concrete_fields)
    where = " AND ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    order = f" ORDER BY {quote(meta.get_field(newest).column)} DESC" if newest else ""
    lock = " FOR UPDATE" if locked and connection.features.has_select_for_update else ""
    return f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {where}{order} LIMIT 1{lock}"


@cache
def _converters(model: type[models.Model], vendor: str) -> list[tuple[int, list, Any]]:
    """What the ORM's compiler does to each column it reads (JSON parsed, times made aware):
    (position, converters, column) for the columns that need any."""
    found = []
    for position, field in enumerate(model._meta.concrete_fields):
        converters, column = django_orm.read_converters(model, field)
        if converters:
            found.append((position, converters, column))
    return found


def model_from_row[M: models.Model](model: type[M], row: Sequence[Any]) -> M:
    values = list(row)
    # A model class hashes by identity; mypy, seeing Django untyped, cannot tell.
    for position, converters, column in _converters(model, connection.vendor):  # type: ignore[arg-type]
        for convert in converters:
            values[position] = convert(values[position], column, connection)
    return model.from_db(connection.alias, None, values)


def first[M: models.Model](
    model: type[M], *, newest: str = "", locked: bool = False, **equal: object
) -> M | None:
    """`model.objects.filter(**equal).order_by(f"-{newest}").first()` (`select_for_update` if
    `locked`), for the lookups every page and socket makes (a room by its code, a room's newest
    game): the same row and values, with the SQL made once instead of compiled by the ORM on
    each call, five to eight times what SQLite spends on the query (docs/performance.md).
    `equal` names concrete fields (a foreign key by its field's name, with the key's value)."""
    return _first(model, equal, newest, locked)


def _first[M: models.Model](
    model: type[M], equal: Mapping[str, object], newest: str, locked: bool
) -> M | None:
    names = tuple(equal)
    fields = [model._meta.get_field(name) for name in names]
    params = [db_value(field, equal[name]) for field, name in zip(fields, names, strict=True)]
    with connection.cursor() as cursor:
        sql = _first_sql(model, names, newest, connection.vendor, locked)  # type: ignore[arg-type]
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else model_from_row(model, row)


def get[M: models.Model](model: type[M], **equal: object) -> M:
    """`model.objects.get(**equal)` for a lookup by a unique field, as `first` reads it."""
    found = _first(model, equal, "", False)
    if found is None:
        raise model.DoesNotExist(f"no {model.__name__} with {equal}")
    return found


_PLAIN_TYPES = frozenset(
    ("AutoField", "BigAutoField", "BigIntegerField", "CharField", "ForeignKey")
    + ("IntegerField", "PositiveIntegerField", "TextField")
)


@cache
def _plain(field: models.Field) -> bool:
    return field.get_internal_type() in _PLAIN_TYPES


def db_value(field: models.Field, value: Any) -> Any:
    """`field.get_db_prep_save(value)`, which for a plain int, str or None in a number, text or
    key column is the value itself on both databases: that skips its chain of calls, a sixth
    of a move's CPU on SQLite (docs/performance.md)."""
    if (value is None or type(value) is int or type(value) is str) and _plain(field):
        return value
    return field.get_db_prep_save(value, connection)
