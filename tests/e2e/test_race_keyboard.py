"""A race played as people play it, in Chromium: the host on a phone, in dark mode, with the
keyboard alone (the Solver bot seated at a pace from the lobby, the start, every reveal), a rival
on a desktop, a spectator, and a late joiner who watches until the next race; screenshots of
each screen."""

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.accessibility import audit
from tests.helpers.e2e.keyboard import focused_cell, tab_to
from tests.helpers.e2e.race import create_race, join, live, safe_cells, shot

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`
PHONE = {"width": 390, "height": 844}


def reveal_by_keys(page: Page, x: int, y: int) -> None:
    """Arrow keys from the focused cell to (x, y), then Enter; the cell opens."""
    at_x, at_y = focused_cell(page)
    for key, steps in (
        ("ArrowRight", x - at_x),
        ("ArrowLeft", at_x - x),
        ("ArrowDown", y - at_y),
        ("ArrowUp", at_y - y),
    ):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    expect(page.locator(f"#cell-{x}-{y}")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(f"#cell-{x}-{y}")).not_to_have_attribute("data-state", "hidden")


def test_a_phone_host_races_by_keyboard_in_dark_mode_with_a_rival_a_spectator_and_a_late_joiner(
    new_context, game_db, screenshots
):
    ana = new_context(color_scheme="dark", viewport=PHONE, has_touch=False).new_page()
    invite = create_race(ana, "Ana")
    code = invite.rstrip("/").rsplit("/", 1)[1]
    bo = new_context(color_scheme="dark").new_page()
    join(bo, invite, "Bo")
    watcher = new_context(color_scheme="dark", viewport={"width": 1280, "height": 900}).new_page()
    watcher.goto(f"{invite}watch/")
    live(watcher)

    # The lobby lists who will race; the host seats the Solver bot at 4 cells a second by keys
    # (the results wait for it; tests/web/test_race_lobby.py has the singular of 1 cell a second).
    roster = ana.locator("#roster")
    expect(roster.locator("h2")).to_have_text("Who will race")
    expect(roster.locator('[data-seat="1"]')).to_have_attribute("data-online", "true")
    expect(bo.locator(".bot-controls")).to_be_hidden()  # the host's alone
    expect(ana.locator(".rules-list li")).to_have_count(3)
    tab_to(ana, ".bot-pace select")
    ana.keyboard.press("ArrowDown")  # 2 -> 4 cells a second
    expect(ana.locator(".bot-pace select")).to_have_value("4")
    ana.keyboard.press("Tab")
    ana.keyboard.press("Enter")
    for page in (ana, bo, watcher):
        expect(page.locator('#roster [data-seat="bot"]')).to_contain_text("4 cells/s")
        expect(page.locator("#lobby-racers li")).to_have_count(3)  # Ana, Bo, the Solver bot
    expect(ana.locator("#narration")).to_contain_text("Ana set the Solver bot to race at 4")
    shot(ana, screenshots, "race-lobby-phone-keyboard-dark")
    shot(bo, screenshots, "race-lobby-guest-dark")
    audit(ana, screenshots, "race-lobby-host-phone")  # the pace select, the chips
    ana.emulate_media(color_scheme="dark")

    tab_to(ana, ".start-button")
    ana.keyboard.press("Enter")
    for page in (ana, bo):
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing")
        expect(page.locator("#lobby-racers")).to_be_empty()
    late = new_context(color_scheme="dark").new_page()
    join(late, invite, "Dee")
    for page in (ana, late):
        dee = page.locator('#roster [data-seat="2"]')
        expect(dee).to_have_attribute("data-role", "watching")
        expect(dee).to_contain_text("watching · online")
    expect(late.locator("#race .race-title")).to_have_text("Watching: you race in the next one")
    expect(late.locator(".mode-pill")).to_contain_text("Next race as Dee")

    # Ana plays her whole board by keys: Tab onto the board, arrows, Enter.
    tab_to(ana, "#board .cell")
    cells = safe_cells(game_db, code, 0)
    for x, y in cells[:3]:
        reveal_by_keys(ana, x, y)
    expect(watcher.locator("#board-0")).not_to_have_attribute("data-progress", "0")
    shot(ana, screenshots, "race-racing-phone-keyboard-dark")
    shot(watcher, screenshots, "race-racing-spectator-dark")
    shot(late, screenshots, "race-racing-late-joiner-dark")
    audit(late, screenshots, "race-late-joiner")
    while cells := safe_cells(game_db, code, 0):
        reveal_by_keys(ana, *cells[0])
    expect(ana.locator("#status-0")).to_have_attribute("data-standing", "finished")
    tab_to(bo, ".give-up-form .give-up")
    bo.keyboard.press("Enter")  # asks first, the safe answer focused
    expect(bo.get_by_role("button", name="Keep racing")).to_be_focused()
    bo.keyboard.press("Shift+Tab")
    expect(bo.get_by_role("button", name="Yes, give up")).to_be_focused()
    bo.keyboard.press("Enter")
    for page in (ana, bo, watcher, late):  # the Solver bot finishes at its pace
        expect(page.locator("#results tr[data-seat]")).to_have_count(3, timeout=60_000)
    expect(ana.locator('#results tr[data-seat="0"]')).to_have_attribute("data-standing", "finished")
    shot(ana, screenshots, "race-results-phone-keyboard-dark")
    tab_to(ana, ".rematch")
    ana.keyboard.press("Enter")
    for page in (ana, late):
        expect(page.locator("#race")).to_have_attribute("data-phase", "lobby")
        expect(page.locator('#roster [data-seat="2"]')).to_have_attribute("data-role", "racer")
    expect(ana.locator("#roster h2")).to_have_text("Who will race")
    expect(ana.locator("#lobby-racers li")).to_have_count(4)  # Dee races this time
