"""Replay pages in the browser: open at a move, scrub the timeline.

Moved out of tests/e2e/test_replays.py (issue 34): test modules share helpers from here, never from
each other."""

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.helpers.e2e.site import screenshot


def shot(page: Page, screenshots: Path, name: str, **options) -> None:
    screenshot(page, screenshots / f"{name}.png", animations="disabled", **options)


def at_move(page: Page, k: int) -> None:
    expect(page.locator("#board")).to_have_attribute("data-k", str(k))


def scrub(page: Page, k: int) -> None:
    page.locator("#replay-scrubber").evaluate(
        "(el, k) => { el.value = String(k); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        k,
    )
    at_move(page, k)
