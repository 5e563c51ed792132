"""Replays in Chromium (issue 16): co-op games played to a loss and a win, the replay opened from
the end banner, scrubbed, stepped, played at 8x and shared; the rewind of a game in progress; the
room's history and the records page. Screenshots (`make screenshot`) go to artifacts/screenshots/."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.accessibility import audit
from tests.helpers.e2e.replays import at_move, scrub, shot
from tests.helpers.e2e.rooms import (
    PHONE,
    cell,
    create_room,
    invite_link,
    join_room,
    next_safe_cell,
    reveal_all,
)
from tests.helpers.e2e.site import own_site

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

site = own_site("records")
"""A server and database of this module's own: the records page lists the best times of every
game in its database, and another module's faster games could push this one's out of the top
20 of a shared one."""

HIDDEN_MINE = re.compile(r"^(mine|exploded|wrong-flag)$")


def board_states(page: Page) -> list[str]:
    return page.locator("#board > *").evaluate_all("(cells) => cells.map((c) => c.dataset.state)")


def test_a_lost_game_replays_from_the_banner_and_its_link_opens_at_the_move(
    new_context, game_db, screenshots
):
    ana = new_context().new_page()
    code = create_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    cell(ana, 0, 0).click()
    expect(cell(bo, 0, 0)).to_have_attribute("data-state", "revealed")
    mines = game_db.mines(code)
    cell(bo, *mines[0]).click(button="right")
    expect(cell(ana, *mines[0])).to_have_attribute("data-state", "flagged")
    safe = next_safe_cell(game_db, code)
    cell(bo, *safe).click()
    expect(cell(ana, *safe)).to_have_attribute("data-state", "revealed")

    # Rewinding the game in progress shows the public board only, then goes back to live.
    ana.get_by_role("link", name="Rewind the current game").click()
    expect(ana.locator(".replay")).to_have_attribute("data-ready", "true")
    expect(ana.get_by_role("link", name="Back to live")).to_be_visible()
    moves_so_far = int(ana.locator(".replay").get_attribute("data-moves"))
    for k in range(moves_so_far + 1):
        scrub(ana, k)
        assert not any(HIDDEN_MINE.match(s or "") for s in board_states(ana))
    ana.locator("#replay-show-mines").wait_for(state="detached")  # no toggle before the end
    ana.get_by_role("link", name="Back to live").click()
    expect(ana.locator("#connection")).to_have_attribute("data-state", "live")

    boom = mines[-1]
    cell(ana, *boom).click()
    banner = bo.locator("#banner")
    expect(banner).to_contain_text("Boom! Ana hit a mine.")
    expect(banner.locator(".figures")).to_contain_text("Clicks")
    expect(banner.locator(".player-stats")).to_contain_text("Ana")
    shot(bo, screenshots, "banner-lost-light")

    bo.get_by_role("link", name="Watch the replay").click()
    expect(bo).to_have_url(re.compile(rf"/r/{code}/games/1/"))
    replay = bo.locator(".replay")
    expect(replay).to_have_attribute("data-ready", "true")
    moves = int(replay.get_attribute("data-moves"))
    at_move(bo, moves)
    expect(cell(bo, *boom)).to_have_attribute("data-state", "exploded")

    bo.get_by_role("button", name="Step back").click()
    at_move(bo, moves - 1)
    expect(cell(bo, *boom)).to_have_attribute("data-state", "hidden")
    bo.keyboard.press("ArrowLeft")
    at_move(bo, moves - 2)
    bo.keyboard.press("ArrowRight")
    at_move(bo, moves - 1)
    bo.get_by_role("button", name="Jump to the mine").click()
    at_move(bo, moves)
    expect(cell(bo, *boom)).to_have_attribute("data-state", "exploded")
    expect(cell(bo, *boom)).to_have_attribute("data-outline", re.compile(r"\d"))

    scrub(bo, 0)
    assert set(board_states(bo)) == {"hidden"}
    bo.locator("#replay-speed").select_option("8")
    bo.get_by_role("button", name="Play").click()
    at_move(bo, moves)
    expect(bo.get_by_role("button", name="Play")).to_have_attribute("data-playing", "false")

    # Entries of the timeline jump; the share link opens at the same board elsewhere.
    bo.locator('#replay-timeline button[data-k="1"]').click()
    at_move(bo, 1)
    expect(cell(bo, 0, 0)).to_have_attribute("data-state", "revealed")
    link = bo.locator("#replay-share").input_value()
    assert link.endswith(f"/r/{code}/games/1/?move=1")
    expected = board_states(bo)
    other = new_context().new_page()
    other.goto(link)
    expect(other.locator(".replay")).to_have_attribute("data-ready", "true")
    at_move(other, 1)
    assert board_states(other) == expected
    expect(cell(other, 0, 0)).to_have_attribute("data-outline", re.compile(r"\d"))


def test_a_won_game_replays_and_lands_in_history_and_records(new_context, game_db, screenshots):
    rita = new_context().new_page()
    code = create_room(rita, "Rita")
    sam = join_room(new_context(), invite_link(rita), "Sam")
    for _ in range(5):  # rarely, the first reveal's cascade clears the board alone
        cell(rita, 4, 4).click()
        expect(cell(sam, 4, 4)).to_have_attribute("data-state", "revealed")
        hidden = game_db.hidden_safe_cells(code)
        if hidden:
            break
        rita.locator(".face").click()
        expect(cell(sam, 4, 4)).to_have_attribute("data-state", "hidden")
    reveal_all(sam, hidden[: max(1, len(hidden) // 2)])
    reveal_all(rita, game_db.safe_cells(code))
    banner = rita.locator("#banner")
    expect(banner).to_contain_text("Board cleared")
    expect(banner.locator(".figures")).to_contain_text("3BV/s")
    expect(banner.locator(".banner-time")).to_have_text(re.compile(r"^\d+\.\d\d s$"))
    shot(rita, screenshots, "banner-won-light")
    number = rita.locator("#board").get_attribute("data-game")
    # The room's history lists the game just finished without a reload.
    expect(sam.locator(f'#room-history a[href="/r/{code}/games/{number}/"]')).to_be_visible()

    rita.get_by_role("link", name="Watch the replay").click()
    expect(rita.locator(".replay")).to_have_attribute("data-ready", "true")
    moves = int(rita.locator(".replay").get_attribute("data-moves"))
    scrub(rita, moves // 2)
    shot(rita, screenshots, "replay-light")
    rita.get_by_label("Show all mines").check()
    expect(rita.locator("#board [data-ghost]")).to_have_count(10)
    rita.get_by_label("Show all mines").uncheck()
    expect(rita.locator("#board [data-ghost]")).to_have_count(0)
    audit(rita, screenshots, "replay")

    dark = new_context(color_scheme="dark").new_page()
    dark.goto(f"/r/{code}/games/{number}/?move={moves // 2}")
    expect(dark.locator(".replay")).to_have_attribute("data-ready", "true")
    shot(dark, screenshots, "replay-dark")
    phone = new_context(viewport=PHONE, color_scheme="dark").new_page()
    phone.goto(f"/r/{code}/games/{number}/?move={moves // 2}")
    expect(phone.locator(".replay")).to_have_attribute("data-ready", "true")
    shot(phone, screenshots, "replay-phone-dark", full_page=True)

    rita.goto(f"/r/{code}/")
    expect(rita.locator("#room-history")).to_contain_text(f"#{number}")
    expect(rita.locator(f'#room-history a[href="/r/{code}/games/{number}/"]')).to_be_visible()

    records = new_context().new_page()
    records.goto("/")
    records.get_by_role("link", name=re.compile("Records")).click()
    # This game's own row (the module's other games share its database), no-guess off.
    ours = f'tr[data-game="{game_db.game_id(code, int(number))}"]'
    expect(records.locator(f"#beginner {ours}")).to_contain_text("Rita, Sam")
    expect(records.locator(f"#beginner-no-guess {ours}")).to_have_count(0)
    shot(records, screenshots, "records-light", full_page=True)
    audit(records, screenshots, "records")
    records_dark = new_context(color_scheme="dark", viewport=PHONE).new_page()
    records_dark.goto("/records/")
    shot(records_dark, screenshots, "records-phone-dark", full_page=True)
    sam_dark = new_context(color_scheme="dark", viewport=PHONE).new_page()
    sam_dark.goto(f"/r/{code}/watch/")
    expect(sam_dark.locator("#banner")).to_contain_text("Board cleared")
    shot(sam_dark, screenshots, "banner-won-phone-dark", full_page=True)


def test_a_tictactoe_game_replays_move_by_move(new_context, screenshots):
    page = new_context().new_page()
    created = page.request.post(
        "/api/rooms", data={"game": "tictactoe", "x": "human", "o": "perfect", "public": True}
    ).json()
    token = created["player_token"]
    headers = {"Authorization": f"Bearer {token}"}
    state = page.request.get(f"/api/rooms/{created['code']}").json()
    for square in range(9):  # the perfect computer answers each mark at once
        if state["status"] != "playing":
            break
        if "".join(state["board"])[square] == ".":
            answer = page.request.post(
                f"/api/rooms/{created['code']}/moves",
                data={"action": "mark", "cell": square},
                headers=headers,
            )
            assert answer.ok
            state = page.request.get(f"/api/rooms/{created['code']}").json()
    assert state["status"] in ("won", "draw")
    page.goto(f"/r/{created['code']}/games/1/?move=2")
    expect(page.locator(".replay")).to_have_attribute("data-ready", "true")
    expect(page.locator("#square-0")).to_have_attribute("data-mark", "X")
    marks = page.locator('#board [data-mark="X"], #board [data-mark="O"]')
    expect(marks).to_have_count(2)
    page.get_by_role("button", name="Step forward").click()
    at_move(page, 3)
    expect(marks).to_have_count(3)
    shot(page, screenshots, "replay-tictactoe-light")
