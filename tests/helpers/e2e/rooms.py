"""Minesweeper rooms in the browser: create, invite, join, wait for the socket, find cells.

Moved out of tests/e2e/test_rooms.py (issue 34): test modules share helpers from here, never from
each other."""

import re

from playwright.sync_api import BrowserContext, Page, expect

from tests.helpers.e2e.site import screenshot as take_screenshot

PHONE = {"width": 390, "height": 844}


def create_room(page: Page, nickname: str, preset: str = "beginner") -> str:
    """Fill the home page form, submit, and wait for the live room; returns the room code."""
    page.goto("/")
    page.get_by_label("Your nickname").fill(nickname)
    page.locator(f'input[name="preset"][value="{preset}"]').check()
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)
    return page.locator(".room").get_attribute("data-room")


def join_room(context: BrowserContext, invite_url: str, nickname: str, screenshot=None) -> Page:
    """Open an invite link in a fresh browser: the nickname form first, then the room."""
    page = context.new_page()
    page.goto(invite_url)
    expect(page.get_by_role("heading", name="You're invited")).to_be_visible()
    if screenshot:
        take_screenshot(page, screenshot, animations="disabled")
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join game").click()
    wait_until_live(page)
    return page


def wait_until_live(page: Page) -> None:
    """Moves go out on the socket, so a test waits for it before clicking."""
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#board")).to_be_visible()


def cell(page: Page, x: int, y: int):
    return page.locator(f"#cell-{x}-{y}")


def invite_link(page: Page) -> str:
    return page.locator("#invite-link").input_value()


def neighbours(x: int, y: int, width: int, height: int) -> list[tuple[int, int]]:
    return [
        (x + dx, y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
    ]


def mines_on_the_edge(game_db, code: str) -> list[tuple[int, int]]:
    """Mines next to a revealed cell: the ones a player would flag next."""
    state = game_db.state(code)
    width, height = state["width"], state["height"]
    revealed = {c for cells in state["revealed"].values() for c in cells}
    return [
        (x, y)
        for x, y in game_db.mines(code)
        if any(nx + ny * width in revealed for nx, ny in neighbours(x, y, width, height))
    ]


def next_safe_cell(game_db, code: str) -> tuple[int, int]:
    """A covered safe cell touching the open area, as a player would pick it."""
    state = game_db.state(code)
    width, height = state["width"], state["height"]
    revealed = {c for cells in state["revealed"].values() for c in cells}
    return next(
        (x, y)
        for x, y in game_db.safe_cells(code)
        if x + y * width not in revealed
        and any(nx + ny * width in revealed for nx, ny in neighbours(x, y, width, height))
    )


def reveal_all(page: Page, cells: list[tuple[int, int]]) -> None:
    """Click each still-hidden cell in turn, in the page, waiting for each to open.

    Sequential on purpose: a burst could outrun a flood that already opened a later cell, and a
    click that lands after the game ended earns the sender a "game over" error.
    """
    page.evaluate(
        """async (cells) => {
            const state = (x, y) => document.getElementById(`cell-${x}-${y}`).dataset.state;
            for (const [x, y] of cells) {
                if (state(x, y) !== "hidden") continue;
                document.getElementById(`cell-${x}-${y}`).click();
                const deadline = performance.now() + 5000;
                while (state(x, y) === "hidden" && performance.now() < deadline) {
                    await new Promise((resolve) => requestAnimationFrame(resolve));
                }
            }
        }""",
        [list(c) for c in cells],
    )


def shot(page: Page, screenshots, name: str, **options) -> None:
    take_screenshot(page, screenshots / f"{name}.png", animations="disabled", **options)
