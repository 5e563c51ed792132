"""A Minesweeper race in Chromium: three racers and a spectator, from the home page to the
results and a rematch; screenshots of a race under way (a racer's and the spectator's screen)
and of the results, light and dark, and a racer's screen at phone width."""

import re

import pytest
from playwright.sync_api import Page, expect

from games.engine.race import COUNTDOWN_MS
from tests.helpers.e2e.race import create_race, join, live, safe_cells, shot
from tests.helpers.e2e.record import record, seen
from tests.helpers.e2e.site import own_site

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`


site = own_site("race", RACE_COUNTDOWN_SECONDS=str(COUNTDOWN_MS / 1000))
"""A server of this module's own that counts the production 3 s down: the session's counts half
a second, too short to watch every racer's countdown one after the other."""


def mine_cell(game_db, code: str) -> tuple[int, int]:
    state = game_db.game(code)["state"]
    cell = min(state["field"])
    return cell % state["width"], cell // state["width"]


def reveal(page: Page, x: int, y: int) -> None:
    cell = page.locator(f"#cell-{x}-{y}")
    if cell.get_attribute("data-state") == "hidden":
        cell.click()
        expect(cell).not_to_have_attribute("data-state", "hidden")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_three_racers_and_a_spectator_race_to_the_results_and_a_rematch(
    new_context, game_db, screenshots, scheme
):
    ana = new_context(color_scheme=scheme).new_page()
    invite = create_race(ana, "Ana", screenshots, scheme)
    code = invite.rstrip("/").rsplit("/", 1)[1]
    bo = new_context(color_scheme=scheme).new_page()
    join(bo, invite, "Bo")
    cy = new_context(color_scheme=scheme, viewport={"width": 390, "height": 844}).new_page()
    join(cy, invite, "Cy")
    watcher = new_context(color_scheme=scheme, viewport={"width": 1400, "height": 900}).new_page()
    watcher.goto(f"{invite}watch/")
    expect(watcher.locator(".mode-pill")).to_contain_text("3 s behind")
    live(watcher)

    expect(bo.locator(".start-form")).to_be_hidden()  # only the host starts
    expect(ana.locator("#rivals")).to_be_attached()
    shot(ana, screenshots, f"race-lobby-{scheme}")
    # The countdown lasts as long as the race's clock says, not as long as the test looks: each
    # racer's screen records it, read once the race (durable) is on.
    for page in (ana, bo, cy):
        record(page, "#race", "data-phase")
        record(page, "#countdown")
    ana.get_by_role("button", name="Start race").click()
    for page in (ana, bo, cy):
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing")
        seen(page, "#race", re.compile("^countdown$"), "data-phase")
        seen(page, "#countdown", re.compile(r"^[123]$"))
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
    # Every racer sees the same opening, and the others' boards as progress only.
    opened = ana.locator('#board .cell[data-state="revealed"]').count()
    assert opened > 0 and bo.locator('#board .cell[data-state="revealed"]').count() == opened
    expect(ana.locator("#board-1")).to_be_visible()
    assert ana.locator("#board-1 [data-count]").count() == 0

    # Bo hits a mine: frozen, with a countdown on his board.
    # The freeze lasts the penalty's 5 s: recorded, as the countdown.
    record(bo, "#freeze")
    record(bo, "#board", "data-frozen")
    x, y = mine_cell(game_db, code)
    bo.locator(f"#cell-{x}-{y}").click()
    seen(bo, "#freeze", "Frozen")
    seen(bo, "#board", re.compile("^true$"), "data-frozen")
    expect(ana.locator("#status-1")).to_have_attribute("data-standing", "racing")

    # Ana and Cy play a few cells; Ana's progress reaches the others.
    for x, y in safe_cells(game_db, code, 0)[:3]:
        reveal(ana, x, y)
    for x, y in safe_cells(game_db, code, 2)[:2]:
        reveal(cy, x, y)
    expect(bo.locator("#board-0")).not_to_have_attribute("data-progress", "0")
    expect(watcher.locator("#race")).to_have_attribute("data-phase", "racing")
    expect(watcher.locator("#board-0 [data-count]").first).to_be_attached()
    watcher.locator('[data-follow="0"]').click()
    expect(watcher.locator("#rival-0")).to_have_class(re.compile("followed"))
    shot(ana, screenshots, f"race-racer-{scheme}")
    shot(cy, screenshots, f"race-racer-phone-{scheme}")
    shot(watcher, screenshots, f"race-spectator-{scheme}")

    # Ana clears her board (keyboard for the last cell), Cy gives up, Bo clears his after the penalty.
    cells = safe_cells(game_db, code, 0)
    for x, y in cells[:-1]:
        reveal(ana, x, y)
    x, y = cells[-1]
    ana.locator(f"#cell-{x}-{y}").focus()
    ana.keyboard.press("Enter")
    expect(ana.locator("#status-0")).to_have_attribute("data-standing", "finished")
    cy.get_by_role("button", name="Give up").click()
    cy.get_by_role("button", name="Yes, give up").click()
    expect(bo.locator("#board")).not_to_have_attribute("data-frozen", "true")
    for x, y in safe_cells(game_db, code, 1):
        reveal(bo, x, y)
    for page in (ana, bo, cy, watcher):
        expect(page.locator("#results tr[data-seat]")).to_have_count(3)
    expect(ana.locator('#results tr[data-place="1"]')).to_have_attribute("data-seat", "0")
    assert ana.locator('#results tr[data-seat="0"]').get_attribute("data-time-ms")
    expect(ana.locator('#results tr[data-seat="2"]')).to_have_attribute("data-time-ms", "")
    shot(ana, screenshots, f"race-results-{scheme}")

    bo.get_by_role("button", name="Rematch").click()
    for page in (ana, bo, cy, watcher):
        expect(page.locator("#race")).to_have_attribute("data-phase", "lobby")
        expect(page.locator("#game-meta")).to_have_attribute("data-game", "2")
