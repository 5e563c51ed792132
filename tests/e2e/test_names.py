"""Long names in the roster: one line each, cut with an ellipsis, the full name in its title."""

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.flags import create_room as create_flags_room
from tests.helpers.e2e.rooms import create_room

pytestmark = pytest.mark.e2e

LONGEST = "W" * 24
"""The widest name the form takes (24 characters, no space to break at)."""

LINES = """(selector) => {
  const element = document.querySelector(selector);
  if (!element) return 0;
  const range = document.createRange();
  range.selectNodeContents(element);
  return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
}"""
"""How many lines an element's text takes on screen; 0 while it is not there."""


def lines(page: Page, selector: str) -> int:
    """The lines of `selector`'s text once it is on screen: rosters and scoreboards are swapped
    in again as people come and go, and an element caught as it was replaced has none."""
    return page.wait_for_function(LINES, arg=selector).json_value()


def roster_selector(seat: str) -> str:
    return f'#roster .roster-player[data-seat="{seat}"] .name'


def roster_name(page: Page, seat: str):
    return page.locator(roster_selector(seat))


SCREENS = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},  # the roster is a narrow column
}


@pytest.mark.parametrize("screen", SCREENS)
def test_a_long_name_and_the_solver_bot_keep_to_one_line(new_context, screen):
    page = new_context(**SCREENS[screen]).new_page()
    create_room(page, LONGEST)
    page.get_by_role("button", name="Add Solver bot").click()
    bot = roster_name(page, "bot")
    expect(bot).to_have_text("Solver bot")
    person = roster_name(page, "0")
    expect(person).to_have_attribute("title", LONGEST)
    assert lines(page, roster_selector("0")) == 1  # not broken letter by letter
    assert person.evaluate("(element) => element.scrollWidth > element.clientWidth")  # cut: …
    assert lines(page, roster_selector("bot")) == 1
    assert bot.evaluate("(element) => element.scrollWidth <= element.clientWidth")  # not cut


def test_a_long_name_on_the_flags_scoreboard_keeps_to_one_line_and_the_page_to_the_phone(
    new_context,
):
    phone = new_context(**SCREENS["phone"]).new_page()
    create_flags_room(phone, LONGEST, x="human", o="human")
    selector = '.contender[data-mark="X"] .contender-name'
    expect(phone.locator(selector)).to_have_attribute("title", LONGEST)
    assert lines(phone, selector) == 1
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
