"""Flags in Chromium: two people play a game to a win, and a person plays the computer.

The mines come from the server's database (`game_db`), so a test claims them on purpose rather
than guessing; every wait is an auto-waiting `expect`. Screenshots of a game in progress (mines
claimed by both sides) and of its end, light and dark, on a laptop and a phone.
"""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.flags import a_number, cell, create_room, hidden_mines, wait_until_live
from tests.helpers.e2e.narration import narrated, record_narration
from tests.helpers.e2e.record import record, seen
from tests.helpers.e2e.site import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

PHONE = {"width": 390, "height": 844}
FINISHED = '#board[data-status="won"]'
STATUS_WORDS = "#status .status-words"
NEXT_GAME = "#status .next-game"


def play(page: Page, at: tuple[int, int]) -> None:
    """Click a cell and wait for the move to come back: the version past the one before (a
    computer's answer may follow at once, so not the next version exactly)."""
    version = int(page.locator("#game-meta").get_attribute("data-version"))
    cell(page, at).click()
    page.wait_for_function(
        "(before) => +document.getElementById('game-meta').dataset.version > before", arg=version
    )


def claim(page: Page, game_db, code: str, count: int) -> None:
    for _ in range(count):
        at = hidden_mines(game_db, code)[0]
        play(page, at)
        expect(cell(page, at)).to_have_attribute("data-state", "claimed")


def shot(page: Page, screenshots, name: str) -> None:
    page.mouse.move(0, 0)
    screenshot(page, screenshots / f"{name}.png", animations="disabled", full_page=True)


def test_two_people_play_flags_to_a_win(new_context, game_db, screenshots):
    ana = new_context().new_page()
    code = create_room(ana, "Ana", x="human", o="human")
    expect(ana.locator("#status")).to_contain_text("Your turn")
    expect(ana.locator("#board")).to_have_attribute("data-turn", "X")
    expect(ana.locator("#bomb")).to_be_hidden()  # level: nobody may bomb yet
    expect(ana.locator(".rules-lines li")).to_have_count(3)
    invite = ana.locator("#invite-link").input_value()

    bo = new_context(color_scheme="dark").new_page()
    bo.goto(invite)
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    wait_until_live(bo)
    expect(bo.locator("#status")).to_contain_text("Ana (X) to move")
    # Ana's tab and hidden heading follow Bo taking the open seat, without a reload.
    expect(ana).to_have_title("Flags · Ana vs Bo · Minesweeper Live")
    expect(ana.locator("#room-title")).to_have_text(
        re.compile(r"^Flags: Ana against Bo, \d+ mines$")
    )

    # Out of turn: the page sends the click, the server says why not, to Bo alone.
    cell(bo, a_number(game_db, code)).click()
    expect(bo.locator("#room-error")).to_contain_text("It is not your turn: X is to move.")
    expect(ana.locator("#room-error")).to_be_empty()

    # Ana claims three mines (each keeps her turn), then opens a number: Bo's turn.
    claim(ana, game_db, code, 3)
    first = hidden_mines(game_db, code)[0]
    expect(bo.locator("#score-X")).to_have_text("3")
    play(ana, a_number(game_db, code))
    expect(bo.locator("#board")).to_have_attribute("data-turn", "O")
    expect(bo.locator("#status")).to_contain_text("Your turn")
    # Bo is behind, so his bomb button shows (for him only); he claims four instead.
    expect(bo.locator("#bomb")).to_be_visible()
    expect(ana.locator("#bomb")).to_be_hidden()
    claim(bo, game_db, code, 4)
    expect(ana.locator("#score-O")).to_have_text("4")
    expect(cell(ana, hidden_mines(game_db, code)[0])).to_have_attribute("data-state", "hidden")
    play(bo, a_number(game_db, code))

    # Ana is behind now: she arms the bomb from the keyboard and drops it on a mine.
    expect(ana.locator("#bomb")).to_be_visible()
    target = hidden_mines(game_db, code)[0]
    toggle = ana.locator("#bomb-toggle")
    toggle.focus()
    ana.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    cell(ana, target).hover()  # the square it would open is outlined
    side = [min(v + 2, 15) - max(v - 2, 0) + 1 for v in target]
    expect(ana.locator("#board .cell.in-blast")).to_have_count(side[0] * side[1])
    screenshot(ana, screenshots / "flags-bomb-armed.png", animations="disabled")
    play(ana, target)
    expect(cell(ana, target)).to_have_attribute("data-seat", "X")
    expect(ana.locator("#bomb")).to_be_hidden()
    expect(ana.locator("#narration")).to_contain_text("Ana bombed around")
    expect(bo.locator("#board")).to_have_attribute("data-turn", "O")
    claimed_x = bo.locator('.cell[data-state="claimed"][data-seat="X"]')
    claimed_o = bo.locator('.cell[data-state="claimed"][data-seat="O"]')
    assert claimed_x.count() >= 4 and claimed_o.count() == 4
    assert first != target
    shot(ana, screenshots, "flags-mid-game")
    shot(bo, screenshots, "flags-mid-game-dark")

    # Bo opens a number; Ana claims mines until she has 26.
    play(bo, a_number(game_db, code))
    score = int(ana.locator("#score-X").text_content())
    claim(ana, game_db, code, 26 - score)
    expect(ana.locator(FINISHED)).to_be_attached()
    expect(bo.locator(FINISHED)).to_be_attached()
    expect(ana.locator("#status .status-words")).to_have_text(re.compile(r"^You win, 26 to \d+!$"))
    expect(bo.locator("#status .status-words")).to_have_text(
        re.compile(r"^Ana wins this one, 26 to \d+\.$")
    )
    expect(ana.locator("#score-X")).to_have_text("26")
    # Every mine nobody claimed is shown now.
    unclaimed = 51 - 26 - int(ana.locator("#score-O").text_content())
    expect(bo.locator('.cell[data-state="mine"]')).to_have_count(unclaimed)
    expect(ana.get_by_role("button", name="Rematch")).to_be_visible()
    shot(ana, screenshots, "flags-won")
    shot(bo, screenshots, "flags-won-dark")

    # A rematch swaps sides: Bo holds X and opens.
    bo.get_by_role("button", name="Rematch").click()
    expect(ana.locator("#game-meta")).to_have_attribute("data-game", "2")
    expect(bo.locator("#status")).to_contain_text("Your turn")
    expect(ana.locator('.contender.me[data-mark="O"]')).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_person_plays_the_computer_on_a_phone(new_context, game_db, screenshots, scheme):
    page = new_context(viewport=PHONE, color_scheme=scheme).new_page()
    code = create_room(page, "Ana", x="human", o="easy", mines=21)
    expect(page.get_by_role("heading", name="Invite friends to watch")).to_be_visible()
    expect(page.locator('.contender[data-mark="O"]')).to_contain_text("Computer")
    # A number passes the turn: the computer thinks, moves, and it is Ana's turn again
    # (or the computer claimed its way to a win).
    record_narration(page)  # the computer's line may be followed by the next game's
    play(page, a_number(game_db, code))
    expect(page.locator(f".room.my-turn, {FINISHED}").first).to_be_attached(timeout=20_000)
    narrated(page, "Computer (easy)")
    assert int(page.locator("#game-meta").get_attribute("data-version")) >= 2
    # The board fits the phone's width: no sideways scrolling.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    if page.locator(FINISHED).count() == 0:
        claim(page, game_db, code, 2)
        shot(page, screenshots, f"flags-vs-computer-phone-{scheme}")
        while page.locator(FINISHED).count() == 0:
            expect(page.locator(f".room.my-turn, {FINISHED}").first).to_be_attached(timeout=20_000)
            if page.locator(FINISHED).count():
                break
            play(page, hidden_mines(game_db, code)[0])
    expect(page.locator("#status .status-words")).to_have_text(
        re.compile(r"^(You win, 11 to \d+!|Computer \(easy\) wins this one, 11 to \d+\.)$")
    )
    shot(page, screenshots, f"flags-vs-computer-phone-end-{scheme}")


def test_a_flags_room_passes_axe_mid_game_and_at_the_end(new_context, game_db, screenshots):
    from tests.helpers.e2e.accessibility import audit

    ana = new_context().new_page()
    code = create_room(ana, "Ana", x="human", o="human", mines=9, timer=60)
    invite = ana.locator("#invite-link").input_value()
    bo = new_context(viewport=PHONE).new_page()  # audited at a phone's width
    bo.goto(invite)
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    wait_until_live(bo)
    claim(ana, game_db, code, 2)
    play(ana, a_number(game_db, code))
    claim(bo, game_db, code, 1)
    expect(bo.locator("#bomb")).to_be_visible()  # Bo is behind: the bomb is offered
    expect(bo.locator("#turn-timer .turn-timer-count")).to_have_text(re.compile(r"^(60|59|58)$"))
    audit(bo, screenshots, "flags-room")
    play(bo, a_number(game_db, code))
    claim(ana, game_db, code, 3)
    expect(bo.locator(FINISHED)).to_be_attached()
    audit(bo, screenshots, "flags-room-over")

    # The finished game is listed under the room, and its replay shows the claims in colour.
    past = bo.locator('#room-history li[data-game="1"] a')
    expect(past).to_be_visible()
    past.click()
    expect(bo.locator("#board.flags-board")).to_be_visible()
    expect(bo.locator('#board .cell[data-state="claimed"][data-seat="X"]').first).to_be_attached()
    expect(bo.locator(".end-stats")).to_contain_text("Ana won")
    shot(bo, screenshots, "flags-replay")


def test_two_computers_play_on_for_a_spectator(new_context, screenshots):
    host = new_context().new_page()
    create_room(host, "Hana", x="easy", o="strong", mines=5)
    expect(host.get_by_role("heading", name="Share the watch link")).to_be_visible()
    watch_url = host.get_by_label("Watch link").input_value()
    host.close()

    viewer = new_context(color_scheme="dark").new_page()
    viewer.goto(watch_url)
    wait_until_live(viewer)
    # The game's end shows for 8 s before the next one replaces it, on the computers' clock:
    # what it showed is recorded, and read once the end or the next game (durable) has come.
    for words in (STATUS_WORDS, NEXT_GAME):
        record(viewer, words)
    expect(viewer.locator(".mode-pill")).to_have_text("Spectating")
    expect(viewer.locator("#bomb")).to_be_hidden()
    # Moves arrive one by one, each after the computer's pause, until the game ends by itself.
    seen(viewer, STATUS_WORDS, re.compile("thinking|wins"))
    expect(viewer.locator(f'{FINISHED}, #game-meta:not([data-game="1"])').first).to_be_attached(
        timeout=40_000
    )
    shot(viewer, screenshots, "flags-computers-dark")  # the end, unless it is gone already
    seen(
        viewer,
        STATUS_WORDS,
        re.compile(r"^Computer [12] \((easy|strong)\) \([XO]\) wins, 3 to [0-2]!$"),
    )
    seen(viewer, NEXT_GAME, re.compile(r"^Next game in [1-8] s$"))
    expect(viewer.locator("#game-meta")).to_have_attribute("data-game", "2", timeout=15_000)
    expect(viewer.locator('.contender[data-mark="X"]')).to_contain_text("Computer 2")


def test_the_create_form_offers_flags_and_says_what_an_even_count_cannot_do(
    new_context, screenshots
):
    page = new_context(viewport=PHONE).new_page()
    page.goto("/")
    page.locator('input[name="game"][value="flags"]').check()
    fields = page.locator("#flags-fields")
    expect(fields).to_be_visible()
    expect(page.locator("#tictactoe-fields")).to_be_hidden()
    hint = fields.locator("[data-count-of] span:visible")
    expect(hint).to_have_text(re.compile("^You play the computer"))  # the default: X person
    fields.locator('select[name="o"]').select_option("human")
    expect(hint).to_have_text(re.compile("the first friend to open your link takes O"))
    expect(fields.locator('input[name="mines"]')).to_have_value("51")
    fields.locator('select[name="turn_seconds"]').select_option("30")
    shot(page, screenshots, "flags-create-phone")
    page.get_by_label("Your nickname").fill("Ana")
    fields.locator('input[name="mines"]').fill("50")
    page.get_by_role("button", name="Create room").click()
    expect(page.locator("#flags-fields .field-error")).to_contain_text("odd number from 1 to 99")
    expect(page.locator('input[name="game"][value="flags"]')).to_be_checked()
    expect(fields.locator('select[name="turn_seconds"]')).to_have_value("30")
