"""Races in the browser: create, join, wait for the race, the safe cells of a board.

Moved out of tests/e2e/test_race.py (issue 34): test modules share helpers from here, never from
each other."""

import re

from playwright.sync_api import Page, expect

from tests.helpers.e2e.site import screenshot


def create_race(page: Page, nickname: str, screenshots=None, scheme: str = "") -> str:
    page.goto("/")
    page.locator('input[name="game"][value="minesweeper"]').check()
    page.locator('input[name="mode"][value="race"]').check()
    expect(page.locator("#race-fields")).to_be_visible()
    expect(page.locator('#minesweeper-fields input[name="no_guess"]')).to_be_checked()
    if screenshots is not None:
        shot(page, screenshots, f"race-home-{scheme}")
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.locator("#invite-link").input_value()


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


def join(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name=re.compile("Join")).click()
    live(page)


def safe_cells(game_db, code: str, seat: int) -> list[tuple[int, int]]:
    state = game_db.game(code)["state"]
    width, height = state["width"], state["height"]
    mines = set(state["field"])
    racer = next(r for r in state["racers"] if r["seat"] == seat)
    done = set(racer["revealed"])
    return [
        (c % width, c // width) for c in range(width * height) if c not in mines and c not in done
    ]


def shot(page: Page, screenshots, name: str) -> None:
    page.mouse.move(0, 0)
    screenshot(page, screenshots / f"{name}.png", animations="disabled", full_page=True)
