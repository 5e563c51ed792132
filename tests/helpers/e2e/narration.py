"""What the narration line said, read from a record rather than from the line itself.

`#narration` is a live region that every move rewrites. In a room where a computer plays (the
Solver bot, a Flags or tic-tac-toe computer) its next move can replace a line before a test gets
to read it, and a test waiting for that line then fails now and then (issue 34: the hint's line,
gone under the bot's next move). So a test records every line the region carried from a point on,
as a screen reader would have heard them, and waits for a matching one among those.
"""

import contextlib
import re

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

RECORD = """() => {
  if (window.narrated) return;
  window.narrated = [];
  const note = () => {
    const line = document.getElementById('narration')?.textContent.replace(/\\s+/g, ' ').trim();
    if (line && line !== window.narrated.at(-1)) window.narrated.push(line);
  };
  note();
  // The whole body: a snapshot may put a new #narration element in place of the old one.
  new MutationObserver(note).observe(
    document.body, {childList: true, characterData: true, subtree: true}
  );
}"""


def record_narration(page: Page) -> None:
    """From now on, keep every line `page`'s narration shows (once per page load)."""
    page.evaluate(RECORD)


def narrated(page: Page, pattern: str | re.Pattern[str], timeout: float = 10_000) -> str:
    """The first recorded line matching `pattern` (a regular expression, or a plain text the
    line contains), waiting for it; fails with every line recorded when none comes."""
    regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
    with contextlib.suppress(PlaywrightTimeoutError):  # the assertion below says what came
        page.wait_for_function(
            "(source) => window.narrated.some((line) => new RegExp(source).test(line))",
            arg=regex.pattern,
            timeout=timeout,
        )
    lines = page.evaluate("window.narrated")
    found = next((line for line in lines if regex.search(line)), None)
    assert found is not None, f"no narration line matched {regex.pattern!r}; it said {lines}"
    return found
