"""The bots' events schema (`/api/events.schema.json`), assembled: the shell's events
(events.schema.json beside this module) and each kind's part (`ApiView.events_schema`): the
definitions it adds, and what its snapshots and moves carry beyond the shared fields. So a kind
added later is described without an edit here, and the kinds' names are listed by the registry."""

import json
from collections.abc import Iterable
from copy import deepcopy
from pathlib import Path
from typing import Any

from ..kinds.table import GameKind

SHELL = json.loads((Path(__file__).parent / "events.schema.json").read_text())
"""Every event's shape, with the kinds left out: `kind` lists none, and a snapshot's and a
move's `allOf` hold no kind's fields."""


def assembled(kinds: Iterable[GameKind]) -> dict[str, Any]:
    """The served schema: the shell's, `kind` listing every kind, and each kind's definitions
    and fields (applied when an event's `game` is that kind's). Two kinds may share a
    definition (a race's cells are Minesweeper's), never define one name two ways."""
    schema = deepcopy(SHELL)
    defs = schema["$defs"]
    for kind in kinds:
        part = kind.api.events_schema
        defs["kind"]["enum"].append(kind.name)
        for name, definition in part.get("$defs", {}).items():
            if defs.setdefault(name, definition) != definition:
                raise ValueError(f"{kind.name} defines {name!r} of the events schema anew")
        for event in ("snapshot", "move"):
            if event in part:
                when = {"properties": {"game": {"const": kind.name}}}
                defs[event]["allOf"].append({"if": when, "then": part[event]})
    return schema
