"""What players stumbled on (issue 35, point 5), in Chromium: each test plays the moment a
player met and checks what the page shows then, where only a browser can tell (computed styles,
boxes inside the window, what a long press does). Screenshots (under `make screenshot`): laptop
1280x800, phone 390x844, light and dark."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


def shot(page: Page, screenshots, name: str, full_page: bool = False) -> None:
    page.mouse.move(0, 0)
    screenshot(page, screenshots / f"{name}.png", animations="disabled", full_page=full_page)


def create_race(page: Page, nickname: str) -> str:
    page.goto("/")
    page.locator('input[name="game"][value="minesweeper"]').check()
    page.locator('input[name="mode"][value="race"]').check()
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.locator("#invite-link").input_value()


def join(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name=re.compile("Join")).click()
    live(page)


def inside_window(page: Page, selector: str) -> bool:
    """Whether the element's whole box is inside the window as it is scrolled now."""
    return page.evaluate(
        """(selector) => {
            const box = document.querySelector(selector).getBoundingClientRect();
            return box.height > 0 && box.top >= 0 && box.left >= 0
                && box.bottom <= innerHeight && box.right <= innerWidth;
        }""",
        selector,
    )


# --- race mini-boards: a flag looks like a flag ---------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_flag_on_a_race_mini_board_is_drawn_as_the_flag_not_a_red_mine(
    new_context, screenshots, scheme
):
    ana = new_context(color_scheme=scheme, viewport=LAPTOP).new_page()
    invite = create_race(ana, "Ana")
    bo = new_context(color_scheme=scheme, viewport=LAPTOP).new_page()
    join(bo, invite, "Bo")
    ana.get_by_role("button", name="Start race").click()
    for page in (ana, bo):
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
    bo.locator("#cell-0-0").click(button="right")
    expect(bo.locator("#cell-0-0")).to_have_attribute("data-state", "flagged")
    # Out of the race, Ana sees Bo's board in full: his flag among its cells.
    ana.get_by_role("button", name="Give up", exact=True).click()
    ana.get_by_role("button", name="Yes, give up").click()
    flag = ana.locator('#board-1 [data-state="flagged"]')
    expect(flag).to_have_count(1)
    look = flag.evaluate(
        """(cell) => {
            const style = getComputedStyle(cell);
            const danger = getComputedStyle(document.documentElement).getPropertyValue("--danger");
            const probe = document.createElement("i");
            probe.style.setProperty("background-color", danger);
            document.body.append(probe);
            const red = getComputedStyle(probe).backgroundColor;
            probe.remove();
            return { image: style.backgroundImage, colour: style.backgroundColor, red,
                     shadow: style.boxShadow };
        }"""
    )
    assert "svg" in look["image"], look  # the flag drawing the boards and replays use
    assert look["colour"] != look["red"], look
    assert look["red"] not in look["shadow"], look  # no red ring around it either
    shot(ana, screenshots, f"stumbles-race-mini-flag-{scheme}", full_page=True)
