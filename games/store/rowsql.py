"""The statements every move runs, written once as SQL instead of built anew by the ORM.

Building them through querysets and `Model.save` / `create` was more than half of
a move's write (`rooms.playing`), several times what the database itself spends on them
(docs/performance.md). Here the SQL is made once per model and field list from
the models' own metadata (tables, columns, quoting, `FOR UPDATE` where the database has it),
values go in through each field's `get_db_prep_save`, and rows come back as `games.store.rows`
reads them, so JSON, time zones and types behave exactly as through the ORM, on SQLite and
PostgreSQL alike (tests/web/test_rowsql.py compares the two).

No signals are sent: nothing in the project listens to the saves of games and moves.

A move's write goes through Django's cursor, in `atomic` where it is more than one statement
(SQLite). It once went to the driver's own cursor, under Django's private connection state; that
bought no tenth of a move's CPU when measured against this (docs/operations.md, "Library
internals"), and was dropped.
"""

import json
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from functools import cache, lru_cache
from typing import Any

from django.db import connection, models, transaction
from django.utils import timezone

from ..patches import django_orm
from . import rows
from .identity_memo import IdentityMemo
from .models import Game, Move

# The `vendor` arguments below only key the caches: quoting and locking differ per database.


def current_game(room_id: int, *, locked: bool) -> Game:
    """The room's newest game; `locked`: its row locked until the transaction ends (on
    PostgreSQL; SQLite's immediate transactions already let one writer in at a time). Every
    room has one from its creation, so none means the room was deleted meanwhile:
    `Game.DoesNotExist`, as a `get` would raise."""
    game = rows.first(Game, newest="number", locked=locked, room=room_id)
    if game is None:
        raise Game.DoesNotExist(f"room {room_id} has no game")
    return game


@cache
def _update_game_sql(names: tuple[str, ...], vendor: str, checked: bool = False) -> str:
    """The UPDATE of a game's `names`, for the row with its id and the version read; `checked`:
    also only while the row holds the state and params given and its room has no newer game
    (`write_move`'s `unchanged`)."""
    meta = Game._meta
    column = {name: rows.quote(meta.get_field(name).column) for name in ("state", "params", "room")}
    assignments = ", ".join(f"{rows.quote(meta.get_field(name).column)} = %s" for name in names)
    sql = (
        f"UPDATE {rows.quote(meta.db_table)} SET {assignments}"
        f" WHERE {rows.quote(meta.pk.column)} = %s AND {rows.quote(meta.get_field('version').column)} = %s"
    )
    if not checked:
        return sql
    state = f"CAST({column['state']} AS text)" if vendor == "postgresql" else column["state"]
    number = rows.quote(meta.get_field("number").column)
    newer = (
        f"SELECT 1 FROM {rows.quote(meta.db_table)} AS newer"
        f" WHERE newer.{column['room']} = %s AND newer.{number} > %s"
    )
    return f"{sql} AND {state} = %s AND {column['params']} = %s AND NOT EXISTS ({newer})"


@cache
def _inserted_fields(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def _insert_head(model: type[models.Model]) -> str:
    fields = _inserted_fields(model)  # type: ignore[arg-type]  # hashes by identity (above)
    columns = ", ".join(rows.quote(field.column) for field in fields)
    return f"INSERT INTO {rows.quote(model._meta.db_table)} ({columns})"


@cache
def _insert_sql(model: type[models.Model], vendor: str) -> str:
    marks = ", ".join("%s" for _ in _inserted_fields(model))  # type: ignore[arg-type]
    return f"{_insert_head(model)} VALUES ({marks})"


@cache
def _update_then_insert_sql(names: tuple[str, ...], vendor: str, checked: bool) -> str:
    """PostgreSQL: the game's UPDATE and the move's INSERT as one statement, the INSERT taking
    place only if the UPDATE found its row. The casts type the values as the columns are typed
    (a bare parameter in a SELECT list would be text)."""
    values = ", ".join(
        f"CAST(%s AS {django_orm.cast_type(field)})" for field in _inserted_fields(Move)
    )
    return (
        f"WITH updated AS ({_update_game_sql(names, vendor, checked)} RETURNING 1)"
        f" {_insert_head(Move)} SELECT {values} FROM updated"
    )


MoveRow = Mapping[str, Any]
"""A move's row for `write_move`: values by field `attname` (`game_id`, `seq`, ...); a missing
`created_at` is now. Making a `Move` instance cost more than the move's INSERT."""


def write_move(
    game: Game, names: Sequence[str], move: MoveRow, read_version: int, unchanged: str | None = None
) -> str | None:
    """The game's fields `names` (the state among them) saved and `move` appended, both or
    neither; returns the text the state column now holds. Neither, and None, when another move
    changed the game since it was read at `read_version`; with `unchanged` (the state's text as
    this process last wrote it, `kept_games`), also when the row's state or params differ from
    `game`'s or the room has a newer game, so a copy of the game kept in memory is checked by
    the write itself.

    On PostgreSQL one statement, a round trip of its own in autocommit: a move then costs two
    round trips (this and the read; one with a kept game) where BEGIN, a locked read, UPDATE,
    INSERT and COMMIT cost five, each a wait for a PostgreSQL process on a busy machine
    (docs/performance.md). SQLite has no UPDATE inside WITH; there the two run in one
    transaction, as cheap as one statement in process. Fields go in as `save` would write them
    (`auto_now_add` included), the state as its JSON text (the value the next write checks)."""
    game_values = [
        _state_text(game) if name == "state" else _prepared(game, name) for name in names
    ]
    update_values = [*game_values, game.pk, read_version]
    if unchanged is not None:
        update_values += [unchanged, _prepared(game, "params"), game.room_id, game.number]
    vendor, names, checked = connection.vendor, tuple(names), unchanged is not None
    written = game_values[names.index("state")]
    if vendor == "postgresql":
        sql = _update_then_insert_sql(names, vendor, checked)
        statements = [(sql, update_values + _move_values(move))]
    else:
        statements = [
            (_update_game_sql(names, vendor, checked), update_values),
            (_insert_sql(Move, vendor), _move_values(move)),
        ]
    return written if _execute_write(statements) else None


def _move_values(move: MoveRow) -> list[Any]:
    values = []
    for field in _inserted_fields(Move):
        value = move.get(field.attname)
        if value is None and getattr(field, "auto_now_add", False):
            value = timezone.now()
        values.append(rows.db_value(field, value))
    return values


def _execute_write(statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
    """The statements in one transaction: each after the first only if the one before it
    changed a row; whether the last did. PostgreSQL's single statement commits by itself in
    autocommit, as a transaction of its own: no BEGIN and COMMIT round trips around it."""
    with (
        transaction.atomic() if len(statements) > 1 else nullcontext(),
        connection.cursor() as cursor,
    ):
        for sql, values in statements:
            cursor.execute(sql, values)
            if cursor.rowcount != 1:
                return False
    return True


def _prepared(game: Game, name: str) -> Any:
    return rows.db_value(Game._meta.get_field(name), getattr(game, name))


def _state_text(game: Game) -> str:
    """The state column's value as text on every database (PostgreSQL infers `json` from the
    column), so the write can hand it on for the next one to check: what `json.dumps` makes of
    the state, to the byte, with the text of each list and dict the last moves wrote reused when
    the state holds that very part again (a flag leaves the revealed cells' list as it was:
    `engine.minesweeper.to_dict`; writing it out was most of a flag's JSON)."""
    field = Game._meta.get_field("state")
    state = field.get_prep_value(game.state)
    if type(state) is not dict or field.encoder is not None:
        return json.dumps(state, cls=field.encoder)
    parts = ", ".join(f"{_key_text(key)}: {_part_text(part)}" for key, part in state.items())
    return "{" + parts + "}"


@lru_cache(maxsize=256)
def _key_text(key: str) -> str:
    return json.dumps(key)


_part_texts: IdentityMemo[object, str] = IdentityMemo(limit=256)
"""The JSON of the lists and dicts of the states the last moves wrote."""


def _part_text(part: object) -> str:
    """`json.dumps(part)`, kept for lists and dicts (parts of a stored state are never changed
    in place)."""
    if type(part) is int:
        return str(part)
    if type(part) is not list and type(part) is not dict:
        return json.dumps(part)
    text = _part_texts.get(part)
    if text is None:
        text = json.dumps(part)
        _part_texts.put(part, text)
    return text
