"""Accessibility in Chromium: axe-core audits every page, in light and in dark mode.

axe-core comes from the `axe-playwright-python` wheel (pinned in the `test` extra), which ships
axe.min.js; it is injected with Playwright's `evaluate`, which the page's Content-Security-Policy
does not govern. A page fails on any critical or serious violation; moderate and minor ones are
printed with the report so they are seen, but do not fail the run.

Each scene is audited in both colour schemes on the same page (`emulate_media`), so a room is set
up once; motion is reduced so no animation is caught half-way (axe would measure the contrast of
a banner still fading in).
"""

import re

import pytest
from playwright.sync_api import expect

from tests.helpers.e2e.accessibility import audit, calm_page
from tests.helpers.e2e.race import create_race, join
from tests.helpers.e2e.rooms import cell, create_room, invite_link, reveal_all, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`


def test_home_page_and_its_form_error(new_context, screenshots):
    page = calm_page(new_context)
    page.goto("/")
    expect(page.get_by_role("button", name="Create room")).to_be_visible()
    audit(page, screenshots, "home")

    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="custom"]').check()
    page.get_by_label("Width").fill("500")
    page.get_by_role("button", name="Create room").click()
    expect(page.locator("#width-error")).to_be_visible()
    audit(page, screenshots, "home-error")


def test_not_found_page(new_context, screenshots):
    page = calm_page(new_context)
    page.goto("/r/no-such-room-code/")
    expect(page.get_by_role("heading", name="Nothing here")).to_be_visible()
    audit(page, screenshots, "not-found")


def test_records_page(new_context, screenshots):
    page = calm_page(new_context)
    page.goto("/records/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    audit(page, screenshots, "records")


def test_an_invite_whose_seat_is_taken(new_context, screenshots):
    """A person-against-computer room: its one seat is the creator's, so the invite offers to
    watch before it asks a name."""
    ana = calm_page(new_context)
    ana.goto("/")
    ana.locator('input[name="game"][value="tictactoe"]').check()
    ana.get_by_label("Your nickname").fill("Ana")
    ana.locator('#tictactoe-fields select[name="o"]').select_option("perfect")
    ana.get_by_role("button", name="Create room").click()
    expect(ana).to_have_url(re.compile(r"/r/[\w-]+/$"))
    visitor = calm_page(new_context)
    visitor.goto(ana.url)
    expect(visitor.get_by_text("The seat is taken — you can watch.")).to_be_visible()
    expect(visitor.get_by_role("link", name="Watch the game")).to_be_visible()
    audit(visitor, screenshots, "invite-seat-taken")


def test_minesweeper_room_join_play_watch_lose_and_win(new_context, game_db, screenshots):
    ana = calm_page(new_context)
    code = create_room(ana, "Ana")
    expect(ana.get_by_role("heading", level=1)).to_have_count(1)

    bo = calm_page(new_context)
    bo.goto(invite_link(ana))
    expect(bo.get_by_role("heading", name="You're invited")).to_be_visible()
    audit(bo, screenshots, "join")
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    wait_until_live(bo)

    viewer = calm_page(new_context)
    viewer.goto(f"/r/{code}/watch/")
    wait_until_live(viewer)

    # The narration's text is swapped inside the live region, which stays in place: a region
    # inserted anew, text and all, is not announced by every screen reader.
    viewer.locator("#narration").evaluate("(line) => { line.dataset.probe = 'kept'; }")
    cell(ana, 4, 4).click()
    expect(cell(bo, 4, 4)).not_to_have_attribute("data-state", "hidden")
    expect(cell(viewer, 4, 4)).not_to_have_attribute("data-state", "hidden")
    narration = viewer.locator("#narration")
    expect(narration).to_contain_text("Ana")
    expect(narration).to_have_attribute("data-probe", "kept")
    audit(bo, screenshots, "minesweeper-playing")
    expect(viewer.get_by_role("heading", level=1)).to_have_count(1)
    audit(viewer, screenshots, "minesweeper-watching")

    if ana.locator("#board").get_attribute("data-status") == "playing":
        bo.locator("#face .face").click()  # a game under way: the smiley asks first
        expect(bo.get_by_role("dialog", name="Restart the game for everyone?")).to_be_visible()
        audit(bo, screenshots, "minesweeper-restart-confirm")
        bo.keyboard.press("Escape")
        expect(bo.get_by_role("dialog")).to_be_hidden()
        mine = next(m for m in game_db.mines(code))
        cell(bo, *mine).click()
        expect(ana.locator("#board")).to_have_attribute("data-status", "lost")
        audit(ana, screenshots, "minesweeper-lost")
    ana.locator(".face").click()
    expect(ana.locator("#board")).to_have_attribute("data-status", "playing")
    expect(ana.locator('#board .cell[data-state="hidden"]')).to_have_count(81)
    for page in (ana, bo, viewer):  # the live region says so, not the last game's last move
        expect(page.locator("#narration")).to_have_text("New game started by Ana.")

    for _ in range(5):  # rarely, the first reveal's cascade clears the board alone
        cell(ana, 4, 4).click()
        expect(cell(ana, 4, 4)).not_to_have_attribute("data-state", "hidden")
        if game_db.hidden_safe_cells(code):
            break
        expect(ana.locator(".face")).to_have_attribute("data-status", "won")
        ana.locator(".face").click()
        expect(cell(ana, 4, 4)).to_have_attribute("data-state", "hidden")
    reveal_all(ana, game_db.safe_cells(code))
    expect(ana.locator("#banner")).to_contain_text("Board cleared")
    expect(ana.get_by_role("button", name="Hint")).to_be_visible()
    audit(ana, screenshots, "minesweeper-won")
    audit(viewer, screenshots, "minesweeper-won-watching")


def test_tictactoe_room_against_the_computer(new_context, screenshots):
    page = calm_page(new_context)
    page.goto("/")
    page.locator('input[name="game"][value="tictactoe"]').check()
    page.get_by_label("Your nickname").fill("Ana")
    page.locator('#tictactoe-fields select[name="x"]').select_option("human")
    page.locator('#tictactoe-fields select[name="o"]').select_option("perfect")
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)
    expect(page.get_by_role("heading", level=1)).to_have_count(1)

    page.locator("#square-4").click()
    expect(page.locator('.square[data-mark="O"]')).to_have_count(1)
    audit(page, screenshots, "tictactoe-playing")

    finished = '#board:not([data-status="playing"])'
    for _ in range(4):  # Ana takes the first free square; the perfect computer answers each
        expect(page.locator(f".room.my-turn, {finished}").first).to_be_attached()
        if page.locator(finished).count():
            break
        version = page.locator("#game-meta").get_attribute("data-version")
        page.locator('.square[data-mark=""]').first.click()
        expect(page.locator("#game-meta")).not_to_have_attribute("data-version", version)
    expect(page.locator(finished)).to_be_attached()
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    audit(page, screenshots, "tictactoe-finished")


def test_race_lobby_alone_progress_cards_and_give_up(new_context, screenshots):
    ana = calm_page(new_context)
    invite = create_race(ana, "Ana")
    expect(ana.locator("#start-why")).to_be_visible()
    audit(ana, screenshots, "race-lobby-alone")
    join(calm_page(new_context), invite, "Bo")
    ana.locator("#race .start-button").click()
    expect(ana.locator("#race")).to_have_attribute("data-phase", "racing", timeout=10_000)
    expect(ana.locator("#board-1.progress-card")).to_be_visible()
    audit(ana, screenshots, "race-progress-cards")
    ana.get_by_role("button", name="Give up", exact=True).click()
    expect(ana.get_by_role("dialog")).to_be_visible()
    audit(ana, screenshots, "race-give-up")
