"""What the narration line said, read from a record rather than from the line itself.

`#narration` is a live region that every move rewrites. In a room where a computer plays (the
Solver bot, a Flags or tic-tac-toe computer) its next move can replace a line before a test gets
to read it, and a test waiting for that line then fails now and then (issue 34: the hint's line,
gone under the bot's next move). So a test records every line the region carried from a point on,
as a screen reader would have heard them, and asks the record once durable state says the line
came (`record.py`).
"""

import re

from playwright.sync_api import Page

from tests.helpers.e2e.record import record, seen

NARRATION = "#narration"


def record_narration(page: Page) -> None:
    """From now on, keep every line `page`'s narration shows (once per page load)."""
    record(page, NARRATION)


def narrated(page: Page, pattern: str | re.Pattern[str], timeout: float = 10_000) -> str:
    """The first recorded line matching `pattern` (a regular expression, or a plain text the
    line contains), waiting for it; fails with every line recorded when none comes."""
    return seen(page, NARRATION, pattern, timeout=timeout)
