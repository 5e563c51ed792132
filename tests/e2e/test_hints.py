"""Hints and the Solver bot in Chromium: the host seats the bot, it plays live at a person's pace,
a hint outlines a safe cell on every screen, and the buttons show only to those who may use them."""

import re

import pytest
from playwright.sync_api import Page, expect

from games.kinds.table import COMPUTER_SEAT
from tests.helpers.e2e.narration import narrated, record_narration
from tests.helpers.e2e.record import record, seen
from tests.helpers.e2e.rooms import invite_link, join_room, next_safe_cell, shot, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

HINTED = '.cell[data-hint="true"]'


def version(page: Page) -> str:
    return page.locator("#game-meta").get_attribute("data-version")


def create_no_guess_room(page: Page, nickname: str) -> str:
    """An intermediate no-guess room: the bot never gets stuck on it, so the scene is certain."""
    page.goto("/")
    page.get_by_label("Your nickname").fill(nickname)
    page.locator('input[name="preset"][value="intermediate"]').check()
    page.get_by_label(re.compile("No guessing")).check()
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)
    return page.locator(".room").get_attribute("data-room")


def test_the_bot_plays_and_a_hint_lights_up_on_every_screen(new_context, game_db, screenshots):
    ana = new_context(viewport={"width": 1280, "height": 1000}).new_page()
    code = create_no_guess_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    watcher = new_context().new_page()
    watcher.goto(f"/r/{code}/watch/")
    wait_until_live(watcher)

    # Only the host sees the bot button; spectators see no Hint button, but the counter.
    expect(ana.get_by_role("button", name="Add Solver bot")).to_be_visible()
    expect(bo.get_by_role("button", name="Add Solver bot")).to_be_hidden()
    expect(watcher.get_by_role("button", name="Hint")).to_be_hidden()
    expect(watcher.locator(".hints-used")).to_have_text("Hints used: 0")

    ana.locator("#cell-8-8").click()
    expect(ana.locator("#cell-8-8")).to_have_attribute("data-state", "revealed")
    for _ in range(2):
        x, y = next_safe_cell(game_db, code)
        bo.locator(f"#cell-{x}-{y}").click()
        expect(bo.locator(f"#cell-{x}-{y}")).to_have_attribute("data-state", "revealed")

    # The bot's next move rewrites the narration a second later: read what it said, not what
    # it shows (tests/helpers/e2e/narration.py).
    record_narration(ana)
    record_narration(watcher)
    ana.get_by_role("button", name="Add Solver bot").click()
    bot = watcher.locator('.roster-bot[data-seat="bot"]')
    expect(bot).to_contain_text("Solver bot")
    expect(ana.get_by_role("button", name="Remove Solver bot")).to_be_visible()
    for _ in range(3):  # about a second apart: wait for three bot moves
        before = version(ana)
        expect(ana.locator("#game-meta")).not_to_have_attribute("data-version", before)
    narrated(ana, "Solver bot")

    # Right after a bot move there is a second before the next: ask for a hint in it. The
    # outline lasts until its cell is next drawn, which a bot's opening may do at any moment:
    # each screen records which cell it outlined, and the counter (durable) says the hint came.
    before = version(ana)
    expect(ana.locator("#game-meta")).not_to_have_attribute("data-version", before)
    for page in (ana, bo, watcher):
        record(page, HINTED, "id")
    ana.get_by_role("button", name="Hint").click()
    for page in (ana, bo, watcher):
        expect(page.locator(".hints-used")).to_have_text("Hints used: 1")
    outlined = {
        seen(page, HINTED, re.compile(r"^cell-\d+-\d+$"), "id") for page in (ana, bo, watcher)
    }
    assert len(outlined) == 1, outlined  # the same cell on every screen
    x, y = (int(n) for n in outlined.pop().split("-")[1:])
    narrated(ana, f"Ana asked for a hint: row {y + 1}, column {x + 1} is safe.")
    ana.mouse.move(0, 0)
    shot(ana, screenshots, "minesweeper-hint-and-bot")
    shot(watcher, screenshots, "minesweeper-hint-spectator")  # the bot may have moved by now
    assert (x, y) in set(game_db.safe_cells(code))

    # The hinted cell was the bot's next pick (the lowest provable one), but it leaves it to
    # Ana: it plays on elsewhere (or waits), never opening that cell itself (a flood from another
    # cell may still reach it), and Ana opens it; the outline goes.
    ana.wait_for_function(
        "(seen) => document.getElementById('game-meta').dataset.version !== seen"
        " || document.querySelector('.roster-bot')?.dataset.doing === 'stuck'",
        arg=version(ana),
    )
    moves = game_db.moves(game_db.game(code)["id"])
    assert (COMPUTER_SEAT, "reveal", x, y) not in [move[1:] for move in moves]
    ana.locator(f"#cell-{x}-{y}").click()
    expect(watcher.locator(f"#cell-{x}-{y}")).to_have_attribute("data-state", "revealed")
    expect(watcher.locator(f"#cell-{x}-{y}")).not_to_have_attribute("data-hint", "true")
    expect(bot.locator(".share")).not_to_have_text("0")

    # Removing it stops it (and keeps it from playing on while later tests run).
    ana.get_by_role("button", name="Remove Solver bot").click()
    expect(watcher.locator(".roster-bot")).to_have_count(0)
    narrated(watcher, re.compile(r"^Ana removed the Solver bot\.$"))
