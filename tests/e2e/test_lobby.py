"""Quick match in two browsers (issue 37): a laptop and a phone click "Flags" on /play/ and
land in the same Flags room, each in their own seat, and one of them has the turn."""

import re

from playwright.sync_api import expect

from tests.helpers.e2e.flags import a_number, cell
from tests.helpers.e2e.rooms import PHONE
from tests.helpers.e2e.site import screenshot

LAPTOP = {"width": 1280, "height": 800}


def test_two_strangers_click_flags_and_land_in_one_flags_room(new_context, screenshots, game_db):
    ana = new_context(viewport=LAPTOP).new_page()
    ana.goto("/")
    screenshot(ana, screenshots / "lobby-home-laptop.png")
    create = ana.get_by_role("button", name="Create room").bounding_box()
    assert create is not None and create["y"] + create["height"] <= LAPTOP["height"]
    ana.locator("#play-link").click()
    expect(ana).to_have_url(re.compile(r"/play/$"))
    expect(ana.locator("#lobby")).to_have_attribute("data-state", "live")  # its socket is open
    ana.locator("#lobby-nickname").fill("Ana")
    ana.get_by_role("button", name="Flags", exact=True).click()
    expect(ana.locator("#lobby-waiting")).to_be_visible()
    screenshot(ana, screenshots / "lobby-waiting-laptop.png")

    bo = new_context(viewport=PHONE).new_page()
    bo.goto("/play/")
    expect(bo.locator("#seeks .seek")).to_have_count(1)  # Ana's seek, live on the list
    expect(bo.locator("#seeks .seek").first).to_contain_text("Ana")
    screenshot(bo, screenshots / "lobby-open-seek-phone.png")
    expect(bo.locator("#lobby")).to_have_attribute("data-state", "live")
    bo.locator("#lobby-nickname").fill("Bo")
    bo.get_by_role("button", name="Flags", exact=True).click()

    room = re.compile(r"/r/[\w-]+/$")
    expect(ana).to_have_url(room)
    expect(bo).to_have_url(room)
    assert ana.url == bo.url
    for page in (ana, bo):
        expect(page.locator("#board")).to_have_attribute("data-turn", re.compile("X|O"))
    expect(ana.locator("#status")).to_contain_text("Your turn")  # the first seeker holds X
    # And they play: Ana opens a numbered cell, which passes the turn, and Bo sees it.
    code = ana.url.rstrip("/").rsplit("/", 1)[1]
    opened = a_number(game_db, code)
    cell(ana, opened).click()
    expect(cell(bo, opened)).to_have_attribute("data-state", "revealed")
    expect(bo.locator("#status")).to_contain_text("Your turn")
    screenshot(ana, screenshots / "lobby-matched-laptop.png")
    screenshot(bo, screenshots / "lobby-matched-phone.png")
