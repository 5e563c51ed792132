"""A JSON field the database keeps as text: PostgreSQL's `json` type instead of `jsonb`.

A game's state is written on every move and read back before the next one, and nothing ever
queries inside it. `jsonb` made PostgreSQL parse every written state into its binary form (each
number a `numeric`) and print it back on every read, where `json` only checks the syntax
(docs/performance.md). The price is that key lookups (`state__...`) are not supported.

Other databases keep Django's own JSON field as it is (SQLite's is already text).
"""

import json
from functools import partial

from django.db import models
from psycopg.types.json import Json


class TextJSONField(models.JSONField):
    def db_type(self, connection) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        # Django's adapter sends `jsonb`, which the column would turn back into text.
        return Json(value, dumps=partial(json.dumps, cls=self.encoder))

    def from_db_value(self, value, expression, connection):
        # psycopg parses `json` itself (Django has it hand `jsonb` over as text).
        if value is None or isinstance(value, str):
            return super().from_db_value(value, expression, connection)
        return value
