"""Tic-tac-toe rooms in the browser.

Moved out of tests/e2e/test_tictactoe.py (issue 34): test modules share helpers from here, never
from each other."""

import re

from playwright.sync_api import Page, expect


def create_room(page: Page, nickname: str, x: str, o: str, home: str = "/") -> None:
    page.goto(home)
    page.locator('input[name="game"][value="tictactoe"]').check()
    expect(page.locator("#tictactoe-fields")).to_be_visible()
    expect(page.locator("#minesweeper-fields")).to_be_hidden()
    page.get_by_label("Your nickname").fill(nickname)
    page.locator('#tictactoe-fields select[name="x"]').select_option(x)
    page.locator('#tictactoe-fields select[name="o"]').select_option(o)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)


def wait_until_live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#board")).to_be_visible()


def square(page: Page, n: int):
    return page.locator(f"#square-{n}")
