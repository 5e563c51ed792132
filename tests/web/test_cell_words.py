"""One wording (issue 34, point 4): a cell's label and a move's line are written from one table
(games/kinds/minesweeper/words.py), which render.py uses and the room page hands to room.js; no
script carries the words itself."""

import json
import re
from pathlib import Path

import pytest

from games.kinds.minesweeper import rules as minesweeper
from games.kinds.minesweeper import words
from games.rooms import joining

ROOT = Path(__file__).resolve().parents[2]
COMPOSED_PLACE = re.compile(r"\b(row|column)\s*(\$\{|[\"'`]\s*\+)")
"""A script writing a place itself: `row ${y + 1}`, `"row " + (y + 1)`, `column ${x}`…"""


def scripts() -> list[Path]:
    """Every script the site serves: the shared static folder and each kind's own."""
    found = sorted((ROOT / "static").rglob("*.js")) + sorted(ROOT.glob("games/**/static/**/*.js"))
    return [
        path for path in found if "vendor" not in path.parts and not path.name.endswith(".min.js")
    ]


def phrases() -> set[str]:
    """The table's words of two or more, between its `{fields}`: "adjacent mine", "wrong flag,
    no mine", "removed a flag"…; single words ("hidden", "row") say too little to look for."""
    templates: list[str] = []
    for entry in words.WORDS.values():
        templates.extend(entry.values() if isinstance(entry, dict) else [entry])
    parts = (part.strip(" ,.") for text in templates for part in re.split(r"\{\w+\}", text))
    return {part for part in parts if " " in part}


def wording_in(source: str) -> list[str]:
    """What of the table's wording `source` writes itself."""
    found = [match.group(0) for match in COMPOSED_PLACE.finditer(source)]
    return found + sorted(phrase for phrase in phrases() if phrase in source)


def test_no_script_writes_a_cells_label_or_a_moves_line_itself():
    assert scripts(), "no scripts found: the test would pass on nothing"
    for path in scripts():
        assert wording_in(path.read_text()) == [], path.relative_to(ROOT)


@pytest.mark.parametrize(
    "source",
    [
        "return `row ${y + 1}, column ${x + 1}, ${what}`;",
        'label = "row " + (y + 1) + ", column " + (x + 1);',
        'const LABELS = { exploded: "exploded mine" };',
        "line = `${name} removed a flag.`;",
    ],
)
def test_a_script_that_writes_the_wording_is_caught(source):
    assert wording_in(source)


def test_plain_words_in_comments_are_not_wording():
    assert wording_in("// five in a row pushed the name out; the play column's foot") == []


@pytest.mark.parametrize(
    ("state", "count", "hint", "label"),
    [
        ("hidden", None, False, "row 1, column 1, hidden"),
        ("hidden", None, True, "row 1, column 1, hidden, hint: safe"),
        ("flagged", None, False, "row 1, column 1, flagged"),
        ("revealed", 0, False, "row 1, column 1, empty"),
        ("revealed", 1, False, "row 1, column 1, 1 adjacent mine"),
        ("revealed", 3, False, "row 1, column 1, 3 adjacent mines"),
        ("exploded", None, False, "row 1, column 1, exploded mine"),
        ("wrong-flag", None, False, "row 1, column 1, wrong flag, no mine"),
    ],
)
def test_a_cells_label_reads_as_it_always_has(state, count, hint, label):
    assert words.cell_label(0, 0, state, count, hint) == label


def test_a_moves_lines_read_as_they_always_have():
    assert words.plural("opened", 1).format(name="Bo", count=1) == "Bo revealed 1 cell."
    assert words.plural("opened", 12).format(name="Bo", count=12) == "Bo revealed 12 cells."
    assert words.say("flagged-at", name="Bo", row=3, column=5) == "Bo flagged row 3, column 5."
    assert words.say("unflagged", name="Bo") == "Bo removed a flag."
    assert words.say("moved", name="Bo") == "Bo moved."


def embedded_words(page: str) -> object:
    found = re.search(r'<script id="cell-words" type="application/json">(.*?)</script>', page)
    assert found is not None, "no #cell-words on the page"
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_the_room_page_hands_room_js_the_table(client):
    """A player's page and a spectator's, and a compact board's (whose cells room.js labels)."""
    created = client.post("/rooms/", {"nickname": "Ana", "preset": "beginner"})
    big = minesweeper.validate_settings(50, 50, 400, False)
    compact, _ = joining.open_room("minesweeper", big, "Bo")
    for path in (created["Location"], created["Location"] + "watch/", f"/r/{compact.code}/watch/"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert embedded_words(answer.content.decode()) == words.WORDS, path
