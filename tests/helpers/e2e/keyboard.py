"""Moving the focus with the keyboard.

Moved out of tests/e2e/test_race_keyboard.py (issue 34): test modules share helpers from here,
never from each other."""

from playwright.sync_api import Page, expect


def tab_to(page: Page, selector: str, limit: int = 60) -> None:
    """Tab until `selector` has the focus, as a keyboard user would."""
    target = page.locator(selector)
    for _ in range(limit):
        page.keyboard.press("Tab")
        if target.evaluate_all("(els) => els.includes(document.activeElement)"):
            return
    raise AssertionError(f"{selector} never took the focus")


def focused_cell(page: Page) -> tuple[int, int]:
    focused = page.locator("#board .cell:focus")
    expect(focused).to_have_count(1)
    return int(focused.get_attribute("data-x") or 0), int(focused.get_attribute("data-y") or 0)
