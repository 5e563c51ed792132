"""Accounts in a browser (issue 36): sign up, sign out and in, open a guest's invite signed in
and be seated without typing a name, play, and find the game on the profile. Screenshots on a
laptop and a phone, light and dark; axe finds nothing critical or serious on the account pages."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.helpers.e2e.site import screenshot

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-battery-9"
SCREENS = {
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
AXE = Axe()


def no_blocking_violations(page: Page) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        found = AXE.run(page).response["violations"]
        blocking = [v["id"] for v in found if v["impact"] in {"critical", "serious"}]
        assert not blocking, f"{page.url} ({scheme}): {blocking}"


def shots(page: Page, screenshots, name: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        suffix = "" if scheme == "light" else "-dark"
        screenshot(page, screenshots / f"accounts-{name}{suffix}.png", full_page=True)


@pytest.mark.parametrize("screen", SCREENS)
def test_a_signed_in_player_joins_a_guests_invite_by_name_and_finds_the_game(
    new_context, screenshots, screen
):
    username = f"Bo_{screen}"
    guest = new_context(**SCREENS["laptop"]).new_page()
    guest.goto("/")
    expect(guest.get_by_role("link", name="Sign in")).to_be_visible()
    guest.locator('input[name="game"][value="tictactoe"]').check()
    guest.get_by_label("Your nickname").fill("Ana")
    guest.locator('#tictactoe-fields select[name="x"]').select_option("human")
    guest.locator('#tictactoe-fields select[name="o"]').select_option("human")
    guest.get_by_role("button", name="Create room").click()
    expect(guest.locator("#connection")).to_have_attribute("data-state", "live", timeout=20_000)
    invite = guest.locator("#invite-link").input_value()

    page = new_context(**SCREENS[screen]).new_page()
    page.goto("/accounts/signup/")
    no_blocking_violations(page)
    shots(page, screenshots, f"signup-{screen}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".account-name")).to_have_text(username)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()

    page.goto(invite)
    page.get_by_role("link", name="sign in", exact=True).click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name=f"Join as {username}")).to_be_visible()
    expect(page.get_by_label("Nickname")).to_have_count(0)  # no name to type
    no_blocking_violations(page)
    shots(page, screenshots, f"join-as-{screen}")
    page.get_by_role("button", name=f"Join as {username}").click()
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=20_000)
    expect(guest.locator("#room-title")).to_have_text(f"Tic-tac-toe: Ana against {username}")
    expect(guest.locator('#roster .roster-player[data-seat="0"] .badge.guest')).to_be_visible()
    expect(guest.locator('#roster .roster-player[data-seat="1"] .badge.guest')).to_have_count(0)

    for mover, square in ((guest, 0), (page, 3), (guest, 1), (page, 4), (guest, 2)):
        expect(mover.locator("#status")).to_contain_text("Your turn")
        mover.locator(f"#square-{square}").click()
    expect(page.locator("#board")).to_have_attribute("data-status", "won")

    page.goto(f"/@/{username}/")
    expect(page.locator("#games-played")).to_have_text("1")
    expect(page.locator("#games-won")).to_have_text("0")
    expect(page.locator(".recent-games .chip")).to_have_text("lost")  # Ana won, not Bo
    page.get_by_role("link", name="Tic-tac-toe · game 1").click()
    expect(page.get_by_role("region", name="Tic-tac-toe · game 1 Ana won")).to_be_visible()
    page.goto(f"/@/{username}/")
    no_blocking_violations(page)
    assert page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"
    )  # no sideways scroll
    shots(page, screenshots, f"profile-{screen}")
