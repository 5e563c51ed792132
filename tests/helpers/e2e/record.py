"""What a page showed, read from a record rather than from the page as it is now.

Where a computer plays (the Solver bot, a Flags or tic-tac-toe computer, a race's clock, the next
game that starts by itself) what the page shows for a moment is replaced on the computer's
schedule, not the test's: a test that waits for such a moment (a narration line, a countdown's
digit, an end banner's words before the next game) passes on a quick machine and fails beside a
busy core (issue 34). So a test records, from a point on, every value an element carried (its
text, or one attribute), as a screen reader or a person would have seen them, waits for durable
state, and then asks the record.
"""

import contextlib
import re

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

RECORD = """([key, selector, attribute]) => {
  window.recorded ??= {};
  if (window.recorded[key]) return;
  const seen = (window.recorded[key] = []);
  const note = () => {
    const element = document.querySelector(selector);
    if (!element) return;
    const value = attribute === null
      ? element.textContent.replace(/\\s+/g, " ").trim()
      : element.getAttribute(attribute);
    if (value && value !== seen.at(-1)) seen.push(value);
  };
  note();
  // The whole body: a swap may put a new element in place of the one first seen.
  new MutationObserver(note).observe(document.body, {
    childList: true, characterData: true, subtree: true, attributes: attribute !== null,
  });
}"""


def _key(selector: str, attribute: str | None) -> str:
    return f"{selector}@{attribute or ''}"


def record(page: Page, selector: str, attribute: str | None = None) -> None:
    """From now on, keep every value (text, or `attribute`) the first element matching
    `selector` shows, once per page load and element."""
    page.evaluate(RECORD, [_key(selector, attribute), selector, attribute])


def recorded(page: Page, selector: str, attribute: str | None = None) -> list[str]:
    """Every value kept so far, oldest first."""
    return page.evaluate("(key) => window.recorded?.[key] ?? []", _key(selector, attribute))


def seen(
    page: Page,
    selector: str,
    pattern: str | re.Pattern[str],
    attribute: str | None = None,
    timeout: float = 10_000,
) -> str:
    """The first recorded value matching `pattern` (a regular expression, or a plain text the
    value contains), waiting for it; fails with every value recorded when none comes."""
    regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
    key = _key(selector, attribute)
    with contextlib.suppress(PlaywrightTimeoutError):  # the assertion below says what came
        page.wait_for_function(
            "([key, source]) => (window.recorded?.[key] ?? []).some("
            "(value) => new RegExp(source).test(value))",
            arg=[key, regex.pattern],
            timeout=timeout,
        )
    values = recorded(page, selector, attribute)
    found = next((value for value in values if regex.search(value)), None)
    assert found is not None, f"{selector} never showed {regex.pattern!r}; it showed {values}"
    return found
