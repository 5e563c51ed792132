"""A board over 1,000 cells comes compact (issue 35): its cells leave out their label, tabindex
and type, and room.js gives them back, so a screen reader and the keyboard find the same board
as on a small one (tests/web/test_compression.py checks what the server sends)."""

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e
LIVE_MS = 30_000
"""A 50×50 board's snapshot on a busy two-core machine can take longer than expect's 5 s."""

CELLS = """() => Array.from(document.querySelectorAll('#board .cell'), (c) => [
    c.dataset.x, c.dataset.y, c.getAttribute('aria-label'), c.getAttribute('tabindex'), c.type])"""


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)


def assert_complete(page: Page) -> None:
    cells = page.evaluate(CELLS)
    assert len(cells) == 2500
    for x, y, label, tabindex, kind in cells:
        assert label == f"row {int(y) + 1}, column {int(x) + 1}, hidden", (x, y, label)
        assert tabindex in ("-1", "0") and kind == "button"


def test_a_compact_board_gets_its_labels_and_focus_back(page: Page, new_context):
    page.goto("/")
    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="custom"]').check()
    page.locator('input[name="width"]').fill("50")
    page.locator('input[name="height"]').fill("50")
    page.locator('#minesweeper-fields input[name="mines"]').fill("400")
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    code = page.locator(".room").get_attribute("data-room")
    expect(page.locator("#board")).to_have_attribute("data-compact", "")
    assert_complete(page)
    page.locator("#cell-0-0").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#cell-1-0")).to_be_focused()
    expect(page.locator("#cell-1-0")).to_have_attribute("tabindex", "0")
    watcher = new_context().new_page()
    watcher.goto(f"/r/{code}/watch/")
    live(watcher)
    assert_complete(watcher)
