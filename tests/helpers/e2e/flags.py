"""Flags rooms in the browser, and where the mines and numbers are.

Moved out of tests/e2e/test_flags.py (issue 34): test modules share helpers from here, never from
each other."""

import re

from playwright.sync_api import Page, expect


def create_room(
    page: Page, nickname: str, x: str, o: str, mines: int | None = None, timer: int = 0
) -> str:
    page.goto("/")
    page.locator('input[name="game"][value="flags"]').check()
    expect(page.locator("#flags-fields")).to_be_visible()
    page.get_by_label("Your nickname").fill(nickname)
    fields = page.locator("#flags-fields")
    fields.locator('select[name="x"]').select_option(x)
    fields.locator('select[name="o"]').select_option(o)
    if mines is not None:
        fields.locator('input[name="mines"]').fill(str(mines))
    fields.locator('select[name="turn_seconds"]').select_option(str(timer))
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)
    return page.locator(".room").get_attribute("data-room")


def wait_until_live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#board")).to_be_visible()


def cell(page: Page, at: tuple[int, int]):
    return page.locator(f"#cell-{at[0]}-{at[1]}")


def hidden_mines(game_db, code: str) -> list[tuple[int, int]]:
    """Mines nobody has claimed yet, in cell order."""
    state = game_db.state(code)
    claimed = {c for cells in state["claimed"].values() for c in cells}
    width = state["width"]
    return [(c % width, c // width) for c in state["field"] if c not in claimed]


def a_number(game_db, code: str) -> tuple[int, int]:
    """A hidden safe cell next to a mine: revealing it opens it alone and passes the turn."""
    state = game_db.state(code)
    width, height = state["width"], state["height"]
    mines = set(state["field"])
    opened = set(state["revealed"])
    for cell_ in range(width * height):
        x, y = cell_ % width, cell_ // width
        near = {
            (y + dy) * width + x + dx
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            if 0 <= x + dx < width and 0 <= y + dy < height
        }
        if cell_ not in mines and cell_ not in opened and near & mines:
            return x, y
    raise AssertionError("no numbered cell left")
