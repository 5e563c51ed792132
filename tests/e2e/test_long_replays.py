"""A long game's replay in Chromium (issue 26, item 6): the page carries one chunk of the
timeline and fetches the others as the viewer seeks, steps and plays into them; the link to a
move keeps working across chunks."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.replays import at_move, scrub, shot
from tests.helpers.e2e.rooms import PHONE

pytestmark = pytest.mark.e2e

MOVES = 1201
"""A reveal and 1,200 flag toggles of one cell: three chunks of 500 (the last of 201)."""


def long_game(page: Page, game_db) -> tuple[str, tuple[int, int]]:
    """A beginner room made through the API, its first reveal played there, and then 1,200
    flag toggles of one covered cell written to the log behind the server's back (playing them
    would take minutes; the server reads the log as it wrote it)."""
    created = page.request.post("/api/rooms", data={"preset": "beginner", "public": True}).json()
    code, token = created["code"], created["player_token"]
    headers = {"Authorization": f"Bearer {token}"}
    move = {"action": "reveal", "x": 4, "y": 4}
    assert page.request.post(f"/api/rooms/{code}/moves", data=move, headers=headers).ok
    game = game_db.game(code)
    assert game["status"] == "playing", "the first reveal cleared the board alone"
    x, y = next(iter(game_db.hidden_safe_cells(code)))
    game_db.execute(
        "INSERT INTO games_move (game_id, seq, seat, action, x, y, created_at) "
        f"WITH RECURSIVE n(seq) AS (SELECT 2 UNION ALL SELECT seq + 1 FROM n WHERE seq < {MOVES}) "
        f"SELECT m.game_id, n.seq, m.seat, 'flag', {x}, {y}, m.created_at "
        "FROM n, games_move m WHERE m.game_id = {p} AND m.seq = 1",
        game["id"],
    )
    game_db.execute(f"UPDATE games_game SET version = {MOVES} WHERE id = {{p}}", game["id"])
    return code, (x, y)


def flagged_at(k: int) -> str:
    """The toggled cell after `k` moves: flagged after an odd number of toggles."""
    return "flagged" if k >= 2 and (k - 1) % 2 == 1 else "hidden"


def test_a_long_replay_seeks_steps_and_plays_across_its_chunks(new_context, game_db, screenshots):
    page = new_context().new_page()
    code, (x, y) = long_game(page, game_db)
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "/chunks/" in r.url else None)
    page.goto(f"/r/{code}/games/1/?move=0")
    expect(page.locator(".replay")).to_have_attribute("data-ready", "true")
    cell = page.locator(f"#cell-{x}-{y}")
    timeline = page.locator("#replay-timeline")
    expect(timeline.locator("button[data-k]")).to_have_count(1 + 500)

    page.keyboard.press("End")  # the last chunk, fetched
    at_move(page, MOVES)
    expect(cell).to_have_attribute("data-state", flagged_at(MOVES))
    expect(page.locator("#replay-position")).to_have_text(f"Move {MOVES} of {MOVES} · 0:00.00")
    expect(timeline.locator("[aria-current=step]")).to_have_attribute("data-k", str(MOVES))
    expect(timeline.locator("button[data-k]")).to_have_count(1 + 201)
    expect(page).to_have_url(re.compile(rf"\?move={MOVES}$"))  # written at most every 400 ms

    scrub(page, 700)  # the middle chunk, fetched
    expect(cell).to_have_attribute("data-state", flagged_at(700))
    expect(cell).to_have_attribute("data-outline", re.compile(r"^\d+$"))
    expect(timeline.locator("[aria-current=step]")).to_have_attribute("data-k", "700")
    expect(timeline.locator('button[data-k="1"]')).to_have_count(0)
    note = "Moves 501–1000 of 1201; the list follows the board."
    expect(page.locator("#replay-chunk-note")).to_have_text(note)
    shot(page, screenshots, "long-replay-light")
    for name, options in (("dark", {}), ("phone-dark", {"viewport": PHONE})):
        other = new_context(color_scheme="dark", **options).new_page()
        other.goto(f"/r/{code}/games/1/?move=700")
        expect(other.locator(".replay")).to_have_attribute("data-ready", "true")
        shot(other, screenshots, f"long-replay-{name}", full_page=name == "phone-dark")

    scrub(page, 1001)
    page.keyboard.press("ArrowLeft")  # into the chunk before
    at_move(page, 1000)
    expect(cell).to_have_attribute("data-state", flagged_at(1000))
    assert page.locator("#replay-share").input_value().endswith("?move=1000")

    page.keyboard.press("Home")  # back to the page's own chunk, its entries as they came
    at_move(page, 0)
    expect(cell).to_have_attribute("data-state", "hidden")
    expect(timeline.locator("button[data-k]")).to_have_count(1 + 500)
    page.keyboard.press("End")
    at_move(page, MOVES)
    assert sorted(re.sub(r".*/chunks/", "", url) for url in fetched) == ["1000/", "500/"]

    # A shared link into the middle opens there, and playback runs on through the chunks.
    page.goto(f"/r/{code}/games/1/?move=490")
    expect(page.locator(".replay")).to_have_attribute("data-ready", "true")
    expect(cell).to_have_attribute("data-state", flagged_at(490))
    page.locator("#replay-speed").select_option("8")
    page.locator("#replay-play").click()
    past_500 = re.compile(r"^(5[2-9]\d|[6-9]\d\d|1\d{3})$")  # 520 on: well into the next chunk
    expect(page.locator("#board")).to_have_attribute("data-k", past_500)
    page.locator("#replay-play").click()
    expect(page.locator("#replay-play")).to_have_attribute("data-playing", "false")
    k = int(page.locator("#board").get_attribute("data-k"))
    expect(cell).to_have_attribute("data-state", flagged_at(k))
    expect(timeline.locator("[aria-current=step]")).to_have_attribute("data-k", str(k))
