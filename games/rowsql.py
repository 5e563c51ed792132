"""The statements every move runs, written once as SQL instead of built anew by the ORM.

Building them through querysets and `Model.save` / `create` cost about 1.5 ms of CPU per move
on this machine, more than half of `services.play` and several times what the database itself
spends on them (docs/performance.md). Here the SQL is made once per model and field list from
the models' own metadata (tables, columns, quoting, `FOR UPDATE` where the database has it),
values go in through each field's `get_db_prep_save`, and rows come back through the converters
the ORM's compiler would apply and `Model.from_db`, so JSON, time zones and types behave exactly
as through the ORM, on SQLite and PostgreSQL alike (tests/web/test_rowsql.py compares the two).

No signals are sent: nothing in the project listens to the saves of games and moves.
"""

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection, models

from .models import Game


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


# The `vendor` arguments below only key the caches: quoting and locking differ per database.


@cache
def _current_game_sql(vendor: str) -> str:
    meta = Game._meta
    columns = ", ".join(_quote(field.column) for field in meta.concrete_fields)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {columns} FROM {_quote(meta.db_table)}"
        f" WHERE {_quote(meta.get_field('room').column)} = %s"
        f" ORDER BY {_quote(meta.get_field('number').column)} DESC LIMIT 1{lock}"
    )


@cache
def _converters(model: type[models.Model], vendor: str) -> list[tuple[int, list, Any]]:
    """What the ORM's compiler does to each column it reads (JSON parsed, times made aware):
    (position, converters, column) for the columns that need any."""
    found = []
    for position, field in enumerate(model._meta.concrete_fields):
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if converters:
            found.append((position, converters, column))
    return found


def _model_from_row[M: models.Model](model: type[M], row: Sequence[Any]) -> M:
    values = list(row)
    for position, converters, column in _converters(model, connection.vendor):
        for convert in converters:
            values[position] = convert(values[position], column, connection)
    return model.from_db(connection.alias, None, values)


def lock_current_game(room_id: int) -> Game | None:
    """The room's newest game, its row locked until the transaction ends (on PostgreSQL; SQLite's
    immediate transactions already let one writer in at a time)."""
    with connection.cursor() as cursor:
        cursor.execute(_current_game_sql(connection.vendor), [room_id])
        row = cursor.fetchone()
    return None if row is None else _model_from_row(Game, row)


@cache
def _update_sql(model: type[models.Model], names: tuple[str, ...], vendor: str) -> str:
    meta = model._meta
    assignments = ", ".join(f"{_quote(meta.get_field(name).column)} = %s" for name in names)
    return f"UPDATE {_quote(meta.db_table)} SET {assignments} WHERE {_quote(meta.pk.column)} = %s"


def update(instance: models.Model, names: Sequence[str]) -> None:
    """`instance.save(update_fields=names)`, for a row that exists."""
    meta = instance._meta
    fields = [meta.get_field(name) for name in names]
    values = [
        field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            _update_sql(type(instance), tuple(names), connection.vendor), [*values, instance.pk]
        )


@cache
def _inserted_fields(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


@cache
def _insert_sql(model: type[models.Model], vendor: str) -> str:
    fields = _inserted_fields(model)
    columns = ", ".join(_quote(field.column) for field in fields)
    marks = ", ".join("%s" for _ in fields)
    return f"INSERT INTO {_quote(model._meta.db_table)} ({columns}) VALUES ({marks})"


def insert(instance: models.Model) -> None:
    """`instance.save()` for a new row whose id nobody needs afterwards (`instance.pk` stays None).
    Fields fill in as `save` fills them: defaults already set, `auto_now_add` now."""
    model = type(instance)
    values = [
        field.get_db_prep_save(field.pre_save(instance, add=True), connection)
        for field in _inserted_fields(model)
    ]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, connection.vendor), values)
