"""Tic-tac-toe in Chromium: against the perfect computer, between two people, and computers
playing each other live on a spectator's screen. Every wait is an auto-waiting `expect`."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.record import record, recorded, seen
from tests.helpers.e2e.site import screenshot
from tests.helpers.e2e.tictactoe import create_room, square, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

FINISHED = '#board:not([data-status="playing"])'
STATUS_WORDS = "#status .status-words"
NEXT_GAME = "#status .next-game"


def shot(page: Page, screenshots, name: str) -> None:
    page.mouse.move(0, 0)
    screenshot(page, screenshots / f"{name}.png", animations="disabled")


def test_a_person_does_not_beat_the_perfect_computer(new_context, screenshots):
    page = new_context().new_page()
    create_room(page, "Ana", x="human", o="perfect")
    expect(page.locator("#status")).to_have_text(re.compile("Your turn"))
    expect(page.get_by_role("heading", name="Invite friends to watch")).to_be_visible()
    expect(page.locator(".contender.me")).to_contain_text("Ana")
    moves = 0
    while True:
        expect(page.locator(f".room.my-turn, {FINISHED}").first).to_be_attached()
        if page.locator(FINISHED).count():
            break
        version = page.locator("#game-meta").get_attribute("data-version")
        # Ana tries the first free square each time: the computer must punish or block it.
        page.locator('.square[data-mark=""]').first.click()
        expect(page.locator("#game-meta")).not_to_have_attribute("data-version", version)
        moves += 1
        assert moves <= 5
    status = page.locator("#status .status-words")
    expect(status).to_have_text(
        re.compile(r"^(Computer \(perfect\) wins this one\.|It's a draw!)$")
    )
    if page.locator("#board").get_attribute("data-status") == "won":
        expect(page.locator('.square[data-win="true"][data-mark="O"]')).to_have_count(3)
        expect(page.locator("#strike line")).to_be_attached()
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    shot(page, screenshots, "tictactoe-vs-perfect")

    # The rematch swaps sides: the computer holds X now and opens by itself.
    page.get_by_role("button", name="Rematch").click()
    expect(page.locator("#game-meta")).to_have_attribute("data-game", "2")
    expect(page.locator('.square[data-mark="X"]')).to_have_count(1)
    expect(page.locator("#status")).to_have_text(re.compile("Your turn"))
    expect(page.locator('.contender.me[data-mark="O"]')).to_be_visible()


def test_two_people_play_and_the_third_only_watches(new_context, screenshots):
    ana = new_context().new_page()
    create_room(ana, "Ana", x="human", o="human")
    expect(ana.locator("#status")).to_contain_text("Your turn")
    expect(ana).to_have_title("Tic-tac-toe · Ana vs Open seat · Minesweeper Live")
    invite = ana.locator("#invite-link").input_value()

    bo = new_context(color_scheme="dark").new_page()
    bo.goto(invite)
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    wait_until_live(bo)
    expect(bo.locator("#status")).to_contain_text("Ana (X) to move")
    # Ana's tab and hidden heading follow Bo taking the open seat, without a reload.
    expect(ana).to_have_title("Tic-tac-toe · Ana vs Bo · Minesweeper Live")
    expect(ana.locator("#room-title")).to_have_text("Tic-tac-toe: Ana against Bo")

    square(ana, 4).click()
    expect(square(bo, 4)).to_have_attribute("data-mark", "X")
    expect(bo.locator("#status")).to_contain_text("Your turn")
    expect(ana.locator("#status")).to_contain_text("Bo (O) to move")
    square(bo, 0).click()
    expect(square(ana, 0)).to_have_attribute("data-mark", "O")

    cy = new_context().new_page()
    cy.goto(invite)
    cy.get_by_label("Nickname").fill("Cy")
    cy.get_by_role("button", name="Join game").click()
    wait_until_live(cy)
    expect(cy.locator(".mode-pill")).to_contain_text("both seats taken")
    square(cy, 8).click()
    expect(cy.locator("#room-error")).to_contain_text("no seat in this game")
    expect(square(ana, 8)).to_have_attribute("data-mark", "")
    shot(ana, screenshots, "tictactoe-two-people")
    shot(bo, screenshots, "tictactoe-two-people-dark")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_computers_play_each_other_live_for_a_spectator(new_context, game_db, screenshots, scheme):
    host = new_context().new_page()
    create_room(host, "Hana", x="random", o="perfect")
    expect(host.get_by_role("heading", name="Share the watch link")).to_be_visible()
    watch_url = host.get_by_label("Watch link").input_value()
    assert watch_url.endswith("/watch/")
    code = watch_url.rstrip("/").split("/")[-2]
    host.close()

    viewer = new_context(color_scheme=scheme).new_page()
    viewer.goto(watch_url)
    wait_until_live(viewer)
    # The game's end shows for 5 s before the next one replaces it, on the computers' clock:
    # what it showed is recorded, and read once the next game (durable) has come.
    for words in (STATUS_WORDS, NEXT_GAME):
        record(viewer, words)
    expect(viewer.locator(".mode-pill")).to_have_text("Spectating")
    # Moves arrive one by one, each after the computer's pause...
    expect(viewer.locator('.square[data-mark="X"]').first).to_be_attached()
    seen(viewer, STATUS_WORDS, re.compile("thinking|wins|draw"))
    # ...until the game ends by itself, with nobody clicking anything.
    expect(viewer.locator(f'{FINISHED}, #game-meta:not([data-game="1"])').first).to_be_attached(
        timeout=20_000
    )
    shot(viewer, screenshots, f"tictactoe-computers-{scheme}")  # the end, unless it is gone
    seen(viewer, STATUS_WORDS, re.compile(r"^(Computer 2 \(perfect\) wins!|It's a draw!)$"))
    assert 5 <= len(game_db.moves(game_db.game_id(code, 1))) <= 9
    # Nobody can ask for a rematch here: it starts by itself after a countdown everyone sees.
    expect(viewer.locator(".rematch")).to_be_hidden()
    seen(viewer, NEXT_GAME, re.compile(r"^Next game in [1-5] s$"))
    expect(viewer.locator("#game-meta")).to_have_attribute("data-game", "2", timeout=10_000)
    counts = [words for words in recorded(viewer, NEXT_GAME) if words.startswith("Next game in")]
    assert len(counts) >= 2, counts  # it counts down
    expect(viewer.locator("#status .next-game")).to_have_count(0)
    expect(viewer.locator('.contender[data-mark="X"]')).to_contain_text("Computer 2")


def test_the_create_form_hint_follows_the_chosen_players(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.locator('input[name="game"][value="tictactoe"]').check()
    hint = page.locator("#tictactoe-fields [data-count-of] span:visible")
    expect(hint).to_have_text(re.compile("^You play the computer"))  # the default: X person
    page.locator('#tictactoe-fields select[name="o"]').select_option("human")
    expect(hint).to_have_text(re.compile("the first friend to open your link takes O"))
    page.locator('#tictactoe-fields select[name="x"]').select_option("random")
    page.locator('#tictactoe-fields select[name="o"]').select_option("perfect")
    expect(hint).to_have_text(re.compile("^The computers play each other"))
