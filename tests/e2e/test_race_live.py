"""Two racers in Chromium, for what only a browser shows: the race clock between a rival's
moves, the Give-up confirmation, the Start button while a racer is alone, and rivals shown as
progress cards (no cells) while the race runs."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.race import create_race, join, safe_cells

pytestmark = pytest.mark.e2e


def clock(page: Page) -> float:
    return float(page.locator("#race-clock").inner_text())


def start_two(new_context) -> tuple[Page, Page, str]:
    """Ana hosts, Bo joins, Ana starts; both at Go."""
    ana = new_context().new_page()
    invite = create_race(ana, "Ana")
    bo = new_context().new_page()
    join(bo, invite, "Bo")
    # As a host would: start once Bo shows up online, so the click is not made while the news
    # of his arrival is still swapping Ana's lobby (one quiet run out of many stayed in it).
    expect(ana.locator('#roster .roster-player[data-seat="1"]')).to_have_attribute(
        "data-online", "true"
    )
    ana.get_by_role("button", name="Start race").click()
    for page in (ana, bo):
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing", timeout=10_000)
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
    return ana, bo, invite.rstrip("/").rsplit("/", 1)[1]


def test_the_race_clock_keeps_counting_after_a_rivals_move(new_context, game_db):
    ana, bo, code = start_two(new_context)
    expect(ana.locator("#race-clock")).to_have_text(re.compile(r"^([2-9]|[1-9]\d+)\.\d$"))
    before = clock(ana)
    progress = ana.locator("#status-1").get_attribute("data-progress")
    x, y = safe_cells(game_db, code, 1)[0]
    bo.locator(f"#cell-{x}-{y}").click()
    expect(ana.locator("#status-1")).not_to_have_attribute("data-progress", progress or "")
    assert clock(ana) >= before  # not back to about 0 when the rival's progress came in


def test_start_race_waits_for_a_second_racer_and_enables_as_one_joins(new_context):
    ana = new_context().new_page()
    invite = create_race(ana, "Ana")
    start = ana.locator("#race .start-button")
    expect(start).to_be_disabled()
    expect(ana.locator("#start-why")).to_have_text("Waiting for a second racer or the Solver bot.")
    join(new_context().new_page(), invite, "Bo")
    expect(start).to_be_enabled()  # the roster's update, over the socket
    expect(ana.locator("#start-why")).to_have_count(0)


def test_give_up_asks_first_and_keep_racing_keeps_the_racer_in(new_context):
    ana, bo, _ = start_two(new_context)
    bo.get_by_role("button", name="Give up", exact=True).click()
    question = bo.get_by_role("dialog", name="Give up this race?")
    expect(question).to_be_visible()
    bo.get_by_role("button", name="Keep racing").click()
    expect(question).to_be_hidden()
    expect(ana.locator("#status-1")).to_have_attribute("data-standing", "racing")
    bo.get_by_role("button", name="Give up", exact=True).click()
    bo.get_by_role("button", name="Yes, give up").click()
    expect(ana.locator("#status-1")).to_have_attribute("data-standing", "gave-up")
