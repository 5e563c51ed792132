"""The words a Minesweeper cell and a move are spoken in: one table, for the server and the page.

A cell's label ("row 3, column 5, 2 adjacent mines") and a move's line in the live region ("Bo
flagged row 3, column 5.") are written by `render.py` on most renderings, and by room.js for what
comes without them: the cells of a lean move and of a compact board, and a lean move's line
(docs/contracts.md, "Markup"). Sending them instead would cost a one-cell update about 40 bytes
of its ~170 (docs/performance.md, "bytes per move"), so the page embeds this table
(`json_script`, as `cell-words`) and room.js fills its templates with the numbers it has: the
wording lives here alone, and a test keeps it out of every script.

Templates use `{name}` fields (str.format here, a replace in room.js). A plural entry is a dict
keyed by the count's case: "zero" when the count is 0 and the entry has one, "one" when it is 1,
else "other".
"""

from functools import cache
from typing import Final

Plural = dict[str, str]

WORDS: Final[dict[str, str | Plural]] = {
    # A cell's label: where it is, then what it shows.
    "cell": "row {row}, column {column}, {what}",
    "hidden": "hidden",
    "flagged": "flagged",
    "mine": "mine",
    "exploded": "exploded mine",
    "wrong-flag": "wrong flag, no mine",
    "revealed": {
        "zero": "empty",
        "one": "{count} adjacent mine",
        "other": "{count} adjacent mines",
    },
    "hint": ", hint: safe",
    # A move's line in the live region (the ones a lean move's page says itself).
    "moved": "{name} moved.",
    "opened": {"one": "{name} revealed {count} cell.", "other": "{name} revealed {count} cells."},
    "flagged-at": "{name} flagged row {row}, column {column}.",
    "unflagged": "{name} removed a flag.",
}


def plural(key: str, count: int) -> str:
    """The template of entry `key` for `count` (the rule in the module's docstring)."""
    entry = WORDS[key]
    assert isinstance(entry, dict), f"{key!r} is not a plural entry"
    if count == 0 and "zero" in entry:
        return entry["zero"]
    return entry["one"] if count == 1 else entry["other"]


def say(key: str, **fields: object) -> str:
    """Entry `key` (a plain one) with its fields filled in."""
    entry = WORDS[key]
    assert isinstance(entry, str), f"{key!r} is a plural entry: use plural()"
    return entry.format(**fields)


def cell_label(x: int, y: int, state: str, count: int | None, hint: bool = False) -> str:
    """A cell's spoken label, from the cell contract's data (0-based x and y, state, count)."""
    label = _CELL.format(row=y + 1, column=x + 1, what=_shows(state, count))
    return label + _HINT if hint else label


_CELL = say("cell", row="{row}", column="{column}", what="{what}")
_HINT = say("hint")


@cache
def _shows(state: str, count: int | None) -> str:
    """What a cell shows, in words: a dozen answers, worked out once each (a page labels every
    cell of its board: 2,500 on a 50×50 one)."""
    if state == "revealed":
        return plural("revealed", count or 0).format(count=count)
    return say(state)
