"""A race's replay in Chromium (issue 16 for races): three racers race through the API; while the
race is on its replay page offers no rewind and says why; once it is over, every racer's board
shows side by side, the scrubber and the step buttons move all of them, each move outlined in its
racer's colour, and the winner lands on the records' race table. Screenshots (light, dark, phone)
go to /tmp/shots/ and artifacts/screenshots/."""

import re

import pytest
from playwright.sync_api import APIRequestContext, Page, expect

from tests.helpers.e2e.replays import at_move, scrub, shot
from tests.helpers.e2e.rooms import PHONE
from tests.helpers.e2e.site import own_site

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

site = own_site("race-records")
"""A server and database of this module's own: the records page lists the best times of every
game in its database, and another module's faster games could push this one's out of the top
20 of a shared one."""


def api(request: APIRequestContext, code: str, token: str, **body) -> int:
    answer = request.post(
        f"/api/rooms/{code}/moves", data=body, headers={"Authorization": f"Bearer {token}"}
    )
    return answer.status


def racer_cells(game_db, code: str, seat: int) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """The racer's hidden safe cells, and a mine."""
    state = game_db.game(code)["state"]
    width = state["width"]
    mines = set(state["field"])
    racer = next(r for r in state["racers"] if r["seat"] == seat)
    done = set(racer["revealed"])
    safe = [(c % width, c // width) for c in range(width * state["height"])]
    hidden = [xy for xy in safe if xy[0] + xy[1] * width not in mines | done]
    mine = min(mines)
    return hidden, (mine % width, mine // width)


def race_to_the_end(page: Page, game_db) -> tuple[str, tuple[int, int]]:
    """Ana, Bo and Cy race on beginner: Bo flags a mine and hits it, Cy opens a few cells, Ana
    clears her board; Bo and Cy give up. Returns the room and the mine Bo flagged."""
    request = page.request
    created = request.post(
        "/api/rooms",
        data={
            "game": "minesweeper",
            "mode": "race",
            "preset": "beginner",
            "no_guess": False,
            "penalty_seconds": 0,
            "public": True,
            "name": "Ana",
        },
    ).json()
    code, tokens = created["code"], [created["player_token"]]
    for name in ("Bo", "Cy"):
        joined = request.post(f"/api/rooms/{code}/join", data={"name": name}).json()
        tokens.append(joined["player_token"])
    ana, bo, cy = tokens
    assert api(request, code, ana, action="start") == 200
    for _ in range(60):  # Go, from the server's clock (half a second on the test servers)
        if request.get(f"/api/rooms/{code}").json()["race"]["phase"] == "racing":
            break
        page.wait_for_timeout(100)

    # While the race is on, its replay shows nothing and says why.
    page.goto(f"/r/{code}/games/1/")
    expect(page.locator(".replay-withheld")).to_contain_text("cannot be rewound")
    expect(page.locator("[id^=cell-]")).to_have_count(0)

    _, mine = racer_cells(game_db, code, 1)
    assert api(request, code, bo, action="flag", x=mine[0], y=mine[1]) == 200
    for x, y in racer_cells(game_db, code, 2)[0][:3]:
        assert api(request, code, cy, action="reveal", x=x, y=y) == 200
    assert api(request, code, bo, action="reveal", x=mine[0], y=mine[1]) in (200, 409)
    while hidden := racer_cells(game_db, code, 0)[0]:
        assert api(request, code, ana, action="reveal", x=hidden[0][0], y=hidden[0][1]) == 200
    assert api(request, code, bo, action="give_up") == 200
    assert api(request, code, cy, action="give_up") == 200
    return code, mine


def test_a_finished_race_replays_every_board_and_its_winner_holds_a_record(
    new_context, game_db, screenshots
):
    page = new_context().new_page()
    code, mine = race_to_the_end(page, game_db)
    page.goto(f"/r/{code}/games/1/")
    replay = page.locator(".replay")
    expect(replay).to_have_attribute("data-ready", "true")
    expect(page.locator("#replay-title")).to_contain_text("Ana won")
    expect(page.locator(".replay-part")).to_have_count(3)
    moves = int(replay.get_attribute("data-moves"))
    flagged = page.locator(f"#cell-1-{mine[0]}-{mine[1]}")

    scrub(page, 0)
    expect(page.locator("#board [data-state=hidden]")).to_have_count(3 * 81)
    page.get_by_role("button", name="Step forward").click()  # Go: every board opens at once
    at_move(page, 1)
    for seat in (0, 1, 2):
        expect(page.locator(f"#board-{seat} [data-state=revealed]").first).to_be_visible()
    page.get_by_role("button", name="Step forward").click()  # Bo's flag, in Bo's colour
    at_move(page, 2)
    expect(flagged).to_have_attribute("data-state", "flagged")
    expect(flagged).to_have_attribute("data-outline", re.compile(r"^\d$"))
    expect(page.locator("#replay-timeline [aria-current=step]")).to_contain_text("Bo flagged")
    page.keyboard.press("ArrowLeft")
    at_move(page, 1)
    expect(flagged).to_have_attribute("data-state", "hidden")

    middle = moves // 2
    scrub(page, middle)
    shot(page, screenshots, "replay-race-light")
    page.get_by_role("button", name="Last move").click()
    at_move(page, moves)
    expect(page.locator(".replay-part-progress").first).to_have_text("100%")
    page.get_by_label("Show all mines").check()
    expect(page.locator("#board-1 [data-ghost]").first).to_be_visible()
    expect(page.locator("#results tr[data-place='1']")).to_contain_text("Ana")

    dark = new_context(color_scheme="dark").new_page()
    dark.goto(f"/r/{code}/games/1/?move={middle}")
    expect(dark.locator(".replay")).to_have_attribute("data-ready", "true")
    shot(dark, screenshots, "replay-race-dark")
    phone = new_context(viewport=PHONE, color_scheme="dark").new_page()
    phone.goto(f"/r/{code}/games/1/?move={middle}")
    expect(phone.locator(".replay")).to_have_attribute("data-ready", "true")
    shot(phone, screenshots, "replay-race-phone-dark", full_page=True)

    page.goto(f"/r/{code}/watch/")  # the room lists the race with its winner and replay
    listed = page.locator("#room-history")
    expect(listed).to_contain_text("Ana won")
    expect(listed).to_contain_text("3BV/s")
    expect(listed.locator(f'a[href="/r/{code}/games/1/"]')).to_contain_text("Ana, Cy, Bo")

    page.goto("/records/")
    # This race's own row, looked up by its game (its name alone would not say which race).
    ours = page.locator(f'#race-beginner tr[data-game="{game_db.game_id(code, 1)}"]')
    expect(ours).to_contain_text("Ana")
    expect(ours.get_by_role("link", name="Replay")).to_have_attribute("href", f"/r/{code}/games/1/")
    # Not among the co-op teams.
    expect(page.locator(f'#beginner a[href="/r/{code}/games/1/"]')).to_have_count(0)
    shot(page, screenshots, "records-race-light", full_page=True)
    records_dark = new_context(color_scheme="dark").new_page()
    records_dark.goto("/records/")
    shot(records_dark, screenshots, "records-race-dark", full_page=True)
    records_phone = new_context(viewport=PHONE).new_page()
    records_phone.goto("/records/")
    shot(records_phone, screenshots, "records-race-phone", full_page=True)
