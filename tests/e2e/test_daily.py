"""The daily board in a browser (issue 37): from the home page's link to /daily/, a copy dealt
with its opening shown, played to a win with the mines from the server's database, then the
day's results and the share text; the create form stays above a laptop's fold."""

import re

from playwright.sync_api import expect

from tests.helpers.e2e.rooms import PHONE, cell, wait_until_live
from tests.helpers.e2e.site import own_site, screenshot

site = own_site("daily", DAILY_BOARD="9x9x10")
"""A server of its own: a small daily board to click through, and results only this module's."""

LAPTOP = {"width": 1280, "height": 800}


def test_a_guest_plays_todays_board_and_sees_the_result_and_the_share_text(
    new_context, game_db, screenshots
):
    page = new_context(viewport=LAPTOP).new_page()
    page.goto("/")
    link = page.locator("#daily-link")
    expect(link).to_be_visible()
    create = page.get_by_role("button", name="Create room").bounding_box()
    assert create is not None and create["y"] + create["height"] <= LAPTOP["height"]
    assert link.bounding_box()["y"] < LAPTOP["height"]
    screenshot(page, screenshots / "daily-home-laptop.png")

    link.click()
    expect(page.locator("#first-attempt")).to_be_visible()
    page.locator("#daily-nickname").fill("Ana")
    page.locator("#play-daily").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    opened = page.locator('#board .cell[data-state="revealed"]')
    expect(opened.first).to_be_visible()  # the day's opening, dealt with the copy
    # The page is drawn before its socket opens, and a click before that is dropped, not queued
    # (a CI run clicked too soon once: the cell stayed hidden).
    wait_until_live(page)
    mines = set(game_db.mines(code))
    for y in range(9):
        for x in range(9):
            target = cell(page, x, y)
            if (x, y) not in mines and target.get_attribute("data-state") == "hidden":
                target.click()
                expect(target).to_have_attribute("data-state", "revealed")
    expect(page.locator("#board")).to_have_attribute("data-status", "won")

    page.goto("/daily/")
    row = page.locator("#today-results tbody tr")
    expect(row).to_have_count(1)
    expect(row.first).to_contain_text("Ana")
    expect(row.first).to_contain_text("cleared")
    share = page.locator("#share-text")
    expect(share).to_have_value(re.compile(r"^Minesweeper Live daily \d{4}-\d\d-\d\d: cleared in "))
    expect(page.locator("#not-recorded")).to_be_visible()
    page.locator("#copy-share").click()
    expect(page.locator("#copy-status")).not_to_be_empty()
    screenshot(page, screenshots / "daily-page-laptop.png", full_page=True)
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the daily page is {width} px wide on a phone"
    screenshot(page, screenshots / "daily-page-phone.png", full_page=True)
