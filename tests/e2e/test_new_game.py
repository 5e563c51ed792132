"""Starting over in a shared room (issue 13): the smiley asks before it wipes a game under way,
by mouse and by keyboard, and everyone is told who started the new game.
"""

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.rooms import cell, create_room, invite_link, join_room, wait_until_live
from tests.helpers.e2e.site import screenshot

pytestmark = pytest.mark.e2e

SCHEMES = ("light", "dark")


def shoot(page: Page, screenshots, name: str) -> None:
    """The page in light and in dark mode."""
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        suffix = "" if scheme == "light" else "-dark"
        screenshot(page, screenshots / f"{name}{suffix}.png", animations="disabled")
    page.emulate_media(color_scheme="light")


def under_way(page: Page, game_db, code: str) -> None:
    """A game with cells open and still being played (rarely the first reveal clears the board:
    then one click starts over, and the next first reveal tries again)."""
    for _ in range(5):
        cell(page, 4, 4).click()
        expect(cell(page, 4, 4)).not_to_have_attribute("data-state", "hidden")
        if game_db.hidden_safe_cells(code):
            return
        page.locator("#face .face").click()
        expect(cell(page, 4, 4)).to_have_attribute("data-state", "hidden")
    raise AssertionError("every first reveal cleared the board")


def test_the_smiley_asks_before_restarting_a_game_in_progress(new_context, game_db, screenshots):
    ana = new_context(reduced_motion="reduce").new_page()
    code = create_room(ana, "Ana")
    bo = join_room(new_context(reduced_motion="reduce"), invite_link(ana), "Bo")
    under_way(ana, game_db, code)
    opened = ana.locator('#board .cell[data-state="revealed"]').count()
    expect(bo.locator('#board .cell[data-state="revealed"]')).to_have_count(opened)

    smiley = bo.locator("#face .face")
    confirm = bo.get_by_role("dialog", name="Restart the game for everyone?")
    smiley.click()
    expect(confirm).to_be_visible()
    expect(confirm.get_by_role("button", name="Cancel")).to_be_focused()
    shoot(bo, screenshots, "restart-confirm")
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()

    # The keyboard: Enter on the smiley asks too; a second Enter lands on Cancel, and Escape
    # cancels as well. Focus goes back to the smiley.
    smiley.focus()
    bo.keyboard.press("Enter")
    expect(confirm).to_be_visible()
    bo.keyboard.press("Enter")
    expect(confirm).to_be_hidden()
    expect(smiley).to_be_focused()
    bo.keyboard.press("Space")
    expect(confirm).to_be_visible()
    bo.keyboard.press("Escape")
    expect(confirm).to_be_hidden()
    for page in (ana, bo):
        expect(page.locator("#game-meta")).to_have_attribute("data-game", "1")
        expect(page.locator('#board .cell[data-state="revealed"]')).to_have_count(opened)
    # A page loaded mid-game has the question closed, and its Cancel does not take the focus.
    bo.reload()
    wait_until_live(bo)
    expect(confirm).to_be_hidden()
    assert bo.evaluate("document.activeElement === document.body")

    smiley.click()
    confirm.get_by_role("button", name="Yes, restart").click()
    for page in (ana, bo):
        expect(page.locator("#game-meta")).to_have_attribute("data-game", "2")
        expect(page.locator('#board .cell[data-state="hidden"]')).to_have_count(81)
        expect(page.locator("#narration")).to_have_text("Bo restarted the game.")
    expect(confirm).to_have_count(0)
    shoot(ana, screenshots, "restart-narration")


def test_a_finished_game_starts_over_with_one_click(new_context, game_db, screenshots):
    ana = new_context(reduced_motion="reduce").new_page()
    code = create_room(ana, "Ana")
    bo = join_room(new_context(reduced_motion="reduce"), invite_link(ana), "Bo")
    viewer = new_context(reduced_motion="reduce").new_page()
    viewer.goto(f"/r/{code}/watch/")
    expect(viewer.locator("#connection")).to_have_attribute("data-state", "live")
    under_way(ana, game_db, code)
    mine = next(iter(game_db.mines(code)))
    cell(bo, *mine).click()
    expect(ana.locator("#board")).to_have_attribute("data-status", "lost")

    ana.locator("#face .face").click()
    for page in (ana, bo, viewer):
        expect(page.locator("#game-meta")).to_have_attribute("data-game", "2")
        expect(page.locator("#narration")).to_have_text("New game started by Ana.")
    expect(ana.get_by_role("dialog")).to_have_count(0)
    expect(viewer.locator("#face .face")).to_be_hidden()  # spectators start no games
    shoot(viewer, screenshots, "new-game-narration-watching")


def test_a_rematch_says_who_started_it_and_who_plays_x(new_context, screenshots):
    ana = new_context(reduced_motion="reduce").new_page()
    ana.goto("/")
    ana.locator('input[name="game"][value="tictactoe"]').check()
    ana.get_by_label("Your nickname").fill("Ana")
    ana.locator('#tictactoe-fields select[name="x"]').select_option("human")
    ana.locator('#tictactoe-fields select[name="o"]').select_option("human")
    ana.get_by_role("button", name="Create room").click()
    wait_until_live(ana)
    bo = join_room(new_context(reduced_motion="reduce"), invite_link(ana), "Bo")
    # Ana (X) takes the top row while Bo (O) plays the middle one.
    for version, (page, square) in enumerate([(ana, 0), (bo, 3), (ana, 1), (bo, 4), (ana, 2)]):
        expect(page.locator("#game-meta")).to_have_attribute("data-version", str(version))
        page.locator(f"#square-{square}").click()
    expect(bo.get_by_role("button", name="Rematch")).to_be_visible()
    bo.get_by_role("button", name="Rematch").click()
    for page in (ana, bo):
        expect(page.locator("#game-meta")).to_have_attribute("data-game", "2")
        expect(page.locator("#narration")).to_have_text("Rematch started by Bo: Bo plays X.")
    shoot(ana, screenshots, "rematch-narration")
