"""Issue 36's whole story in Chromium: two friends sign up (ana on a laptop, bob on a phone), play
rated Flags and race rated, then five rated tic-tac-toe games over the API; their ratings move on
the room pages, on their profiles and on the leaderboard; a guest is told to sign in at a rated
room's invite and still plays an unrated game.

axe finds nothing critical or serious, in light and in dark, on every page the story visits:
sign-up, a rated create form, a room with its rating line, a profile, the leaderboard. Under
`make screenshot` each is kept as seen on the laptop and on the phone, light and dark
(artifacts/screenshots/story-*.png)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.helpers.e2e.accessibility import BLOCKING, SCHEMES, report, violations
from tests.helpers.e2e.accounts import (
    personal_token,
    rated_tictactoe_room,
    sign_up,
    win_rated_games,
)
from tests.helpers.e2e.flags import a_number, cell, hidden_mines
from tests.helpers.e2e.race import safe_cells
from tests.helpers.e2e.rooms import reveal_all
from tests.helpers.e2e.site import own_site, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

site = own_site("rated-story")
"""A database of this module's own: the leaderboard lists every account of its database with 5
rated games, and the story reads it whole (who is first, who second, which lists are empty)."""


@pytest.fixture
def expected_console_errors() -> re.Pattern[str]:
    """The guest's rated form comes back as a 403 ("Sign in to play rated games"), rightly."""
    return re.compile(r"Failed to load resource: the server responded with .* 40[034]")


LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
RATED = 'input[name="rated"]'
FLAGS_MINES = 5
"""The smallest odd count worth a game: 3 claims win it."""


def checked(page: Page, shots: Path, name: str, screen: str) -> None:
    """axe in light and dark (nothing critical or serious), no sideways scroll, and a full-page
    screenshot of each scheme under `make screenshot`."""
    failures = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.mouse.move(0, 0)
        blocking = [v for v in violations(page) if v["impact"] in BLOCKING]
        if blocking:
            failures.append(f"{name}, {screen}, {scheme}:\n{report(blocking)}")
        suffix = "" if scheme == "light" else "-dark"
        path = f"story-{name}-{screen}{suffix}.png"
        screenshot(page, shots / path, animations="disabled", full_page=True)
    page.emulate_media(color_scheme="light", reduced_motion="reduce")
    assert not failures, "axe found critical or serious violations:\n" + "\n".join(failures)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{name} on the {screen}: {width} px wide"


def checked_on_both(page: Page, shots: Path, name: str) -> None:
    """`checked` on a laptop, then at a phone's width (a page only one of them opens)."""
    checked(page, shots, name, "laptop")
    page.set_viewport_size(PHONE["viewport"])
    checked(page, shots, name, "phone")
    page.set_viewport_size(LAPTOP["viewport"])


def open_create_form(page: Page, game: str) -> None:
    page.goto("/")
    page.locator(f'input[name="game"][value="{game}"]').check()


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#board")).to_be_visible()


def join_signed_in(page: Page, invite: str, username: str) -> None:
    """Open the invite signed in: one button with the username, no name to type."""
    page.goto(invite)
    expect(page.get_by_label("Nickname")).to_have_count(0)
    page.get_by_role("button", name=f"Join as {username}").click()
    live(page)


def play(page: Page, at: tuple[int, int]) -> None:
    """A Flags move, waited for: the game's version goes up."""
    version = int(page.locator("#game-meta").get_attribute("data-version"))
    cell(page, at).click()
    expect(page.locator("#game-meta")).to_have_attribute("data-version", str(version + 1))


def rating_line(page: Page, *usernames: str) -> None:
    line = page.locator("#rating-changes")
    expect(line).to_be_visible()
    expect(line).to_contain_text("Ratings:")
    for username in usernames:
        expect(line.locator(f'.rating-change[data-username="{username}"]')).to_have_text(
            re.compile(rf"^{username} \d+ → \d+$")
        )


def rating(page: Page, label: str):
    return page.locator(f'.profile-rating[data-kind-label="{label}"] .rating-value')


def shown(page: Page, label: str) -> int:
    return int(re.match(r"\d+", rating(page, label).inner_text()).group())


def test_two_friends_play_rated_and_a_guest_plays_unrated(
    new_context, game_db, screenshots, playwright: Playwright
):
    # Ana signs up on her laptop, Bo on his phone.
    ana = new_context(**LAPTOP).new_page()
    ana.goto("/accounts/signup/")
    checked(ana, screenshots, "signup", "laptop")
    sign_up(ana, "ana")
    bo = new_context(**PHONE).new_page()
    bo.goto("/accounts/signup/")
    checked(bo, screenshots, "signup", "phone")
    sign_up(bo, "bob")

    # Rated Flags: Ana ticks Rated; Bo opens the invite and is seated as bo.
    open_create_form(ana, "flags")
    fields = ana.locator("#flags-fields")
    expect(ana.locator("#playing-as")).to_contain_text("ana")
    fields.locator('select[name="x"]').select_option("human")
    fields.locator('select[name="o"]').select_option("human")
    fields.locator('input[name="mines"]').fill(str(FLAGS_MINES))
    fields.locator(RATED).check()
    checked_on_both(ana, screenshots, "create-rated-flags")
    ana.get_by_role("button", name="Create room").click()
    live(ana)
    code = ana.locator(".room").get_attribute("data-room")
    join_signed_in(bo, ana.locator("#invite-link").input_value(), "bob")
    expect(ana.locator("#room-title")).to_have_text(f"Flags: ana against bob, {FLAGS_MINES} mines")
    expect(ana.locator("#rating-changes")).to_be_hidden()  # nothing rated yet
    expect(ana.locator("#roster .roster-player")).to_have_count(2)
    expect(ana.locator("#roster .badge.guest")).to_have_count(0)  # two accounts, no guest

    # Ana claims a mine and opens a number; Bo claims one and opens a number; Ana claims two.
    play(ana, hidden_mines(game_db, code)[0])
    play(ana, a_number(game_db, code))
    expect(bo.locator("#status")).to_contain_text("Your turn")
    play(bo, hidden_mines(game_db, code)[0])
    play(bo, a_number(game_db, code))
    expect(ana.locator("#status")).to_contain_text("Your turn")
    play(ana, hidden_mines(game_db, code)[0])
    play(ana, hidden_mines(game_db, code)[0])
    for page in (ana, bo):
        expect(page.locator("#board")).to_have_attribute("data-status", "won")
        rating_line(page, "ana", "bob")
    checked(ana, screenshots, "flags-rated-over", "laptop")
    checked(bo, screenshots, "flags-rated-over", "phone")

    # A rated race: Ana makes it (no-guess), Bo joins, Ana starts; Bo clears his board first,
    # then Ana hers.
    open_create_form(ana, "minesweeper")
    ana.locator('input[name="mode"][value="race"]').check()
    expect(ana.locator('#minesweeper-fields input[name="no_guess"]')).to_be_checked()
    ana.locator('input[name="preset"][value="beginner"]').check()
    ana.locator("#race-fields").locator(RATED).check()
    checked_on_both(ana, screenshots, "create-rated-race")
    ana.get_by_role("button", name="Create room").click()
    live(ana)
    race = ana.locator(".room").get_attribute("data-room")
    race_invite = ana.locator("#invite-link").input_value()
    join_signed_in(bo, race_invite, "bob")
    expect(ana.locator("#lobby-racers")).to_contain_text("bob")
    ana.get_by_role("button", name="Start race").click()
    for page in (ana, bo):
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing")
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
    reveal_all(bo, safe_cells(game_db, race, 1))
    expect(ana.locator("#status-1")).to_have_attribute("data-standing", "finished")
    reveal_all(ana, safe_cells(game_db, race, 0))
    for page in (ana, bo):
        expect(page.locator("#results tr[data-seat]")).to_have_count(2)
        rating_line(page, "ana", "bob")
    expect(ana.locator('#results tr[data-place="1"]')).to_have_attribute("data-seat", "1")
    checked(ana, screenshots, "race-rated-over", "laptop")
    checked(bo, screenshots, "race-rated-over", "phone")

    # Their profiles: one rated game of each kind, provisional ("?"); the winners went up.
    ana.goto("/@/ana/")
    for label in ("Flags", "Minesweeper race"):
        expect(rating(ana, label).locator("abbr")).to_have_text("?")
    assert shown(ana, "Flags") > 1500 > shown(ana, "Minesweeper race")
    expect(ana.locator('.profile-rating[data-kind-label="Tic-tac-toe"]')).to_have_count(0)
    bo.goto("/@/bob/")
    assert shown(bo, "Flags") < 1500 < shown(bo, "Minesweeper race")
    expect(bo.locator(".profile-rating .sparkline")).to_have_count(2)

    # Provisional ratings stay off the leaderboard.
    bo.goto("/leaderboard/")
    expect(bo.locator("table.leaders")).to_have_count(0)
    expect(bo.get_by_text("Nobody yet.")).to_have_count(3)

    # Five rated tic-tac-toe games over the API, as their bots would: Ana wins every one.
    api = playwright.request.new_context(base_url=ana.url.split("/@/")[0])
    try:
        tokens = [personal_token(api, "ana"), personal_token(api, "bob")]
        room, seats = rated_tictactoe_room(api, *tokens)
        win_rated_games(api, room, winner=seats[0], loser=seats[1], games=5)
        ratings = api.get("/api/players/ana").json()["ratings"]
        assert not ratings["tictactoe"]["provisional"] and ratings["tictactoe"]["games"] == 5
        assert ratings["flags"]["provisional"] and ratings["race"]["games"] == 1
    finally:
        api.dispose()

    # Tic-tac-toe counts now: both on the leaderboard, Ana first; the rest still provisional.
    ana.goto("/@/ana/")
    expect(rating(ana, "Tic-tac-toe").locator("abbr")).to_have_count(0)
    expect(ana.locator('.profile-rating[data-kind-label="Tic-tac-toe"]')).to_contain_text(
        "5 rated games"
    )
    assert shown(ana, "Tic-tac-toe") > 1500
    checked(ana, screenshots, "profile", "laptop")
    bo.goto("/@/bob/")
    assert shown(bo, "Tic-tac-toe") < 1500
    expect(bo.locator(".profile-rating .sparkline")).to_have_count(3)
    checked(bo, screenshots, "profile", "phone")
    for page, screen in ((ana, "laptop"), (bo, "phone")):
        page.goto("/leaderboard/")
        leaders = page.locator('table.leaders[data-kind="tictactoe"] tbody tr')
        expect(leaders).to_have_count(2)
        expect(leaders.nth(0)).to_contain_text("ana")
        expect(leaders.nth(1)).to_contain_text("bob")
        expect(page.locator('table.leaders[data-kind="flags"]')).to_have_count(0)
        checked(page, screenshots, "leaderboard", screen)
    ana.get_by_role("link", name="bob", exact=True).click()
    expect(ana.get_by_role("heading", name="bob", exact=True)).to_be_visible()

    # A guest: no seat at a rated room's invite, a rated form refused, an unrated game played.
    guest = new_context(**PHONE, color_scheme="dark").new_page()
    guest.goto(race_invite)
    expect(guest.locator(".seats-taken")).to_contain_text("Sign in to play rated games")
    expect(guest.get_by_role("link", name="Sign in", exact=True).last).to_be_visible()
    expect(guest.get_by_label("Nickname")).to_have_count(0)
    expect(guest.get_by_role("button", name=re.compile("Join"))).to_have_count(0)
    open_create_form(guest, "tictactoe")
    guest.get_by_label("Your nickname").fill("Cy")
    ttt = guest.locator("#tictactoe-fields")
    ttt.locator('select[name="x"]').select_option("human")
    ttt.locator('select[name="o"]').select_option("human")
    ttt.locator(RATED).check()
    guest.get_by_role("button", name="Create room").click()
    expect(guest.locator("#tictactoe-fields .field-error")).to_have_text(
        "Sign in to play rated games: sign in, or untick Rated."
    )
    checked(guest, screenshots, "create-rated-refused", "phone")
    guest.locator("#tictactoe-fields").locator(RATED).uncheck()
    guest.locator('#tictactoe-fields select[name="o"]').select_option("perfect")
    guest.get_by_role("button", name="Create room").click()
    live(guest)
    finished = '#board:not([data-status="playing"])'
    for _ in range(5):
        expect(guest.locator(f".room.my-turn, {finished}").first).to_be_attached()
        if guest.locator(finished).count():
            break
        version = guest.locator("#game-meta").get_attribute("data-version")
        guest.locator('.square[data-mark=""]').first.click()
        expect(guest.locator("#game-meta")).not_to_have_attribute("data-version", version)
    expect(guest.locator(finished)).to_be_attached()
    expect(guest.locator("#rating-changes")).to_be_hidden()
    expect(guest.locator("#roster .badge.guest")).to_be_visible()


def test_a_rated_race_form_hides_what_only_the_solver_bot_uses(new_context):
    """A rated room seats no computer, so its form does not offer the bot's pace or mention it."""
    page = new_context(**LAPTOP).new_page()
    page.goto("/")
    page.locator('input[name="mode"][value="race"]').check()
    pace = page.locator('#race-fields select[name="bot_pace"]')
    hint = page.locator("#race-fields .hint")
    expect(pace).to_be_visible()
    expect(hint).to_contain_text("Solver bot", use_inner_text=True)
    page.locator(f"#race-fields {RATED}").check()
    expect(pace).to_be_hidden()
    expect(hint).not_to_contain_text("Solver bot", use_inner_text=True)
    page.locator(f"#race-fields {RATED}").uncheck()
    expect(pace).to_be_visible()
