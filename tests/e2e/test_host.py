"""Talk, point and host in Chromium (issue 28), one room from start to end: two players (one on
a phone) and a spectator ping, react and chat; the host kicks the spectator and locks the room
(a newcomer is refused); the host leaves and the seat passes to the phone, whose host menu is
then used by touch. The host menu is axe-clean, light and dark, on a laptop and a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import servers
from tests.helpers.e2e.accessibility import audit
from tests.helpers.e2e.chat import say
from tests.helpers.e2e.rooms import PHONE, cell, wait_until_live
from tests.helpers.e2e.signals import ping_on
from tests.helpers.e2e.site import EXPECTED_CONSOLE_ERRORS

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

AWAY = "1"
"""Seconds (HOST_AWAY_SECONDS) before an away host's seat passes on: short, so the test waits
little; the heartbeat that notices beats every half second here."""


@pytest.fixture
def expected_console_errors() -> re.Pattern[str]:
    """The kicked spectator's page answers 403, and the browser logs that, rightly."""
    return re.compile(
        EXPECTED_CONSOLE_ERRORS.pattern
        + r"|Failed to load resource: the server responded with .* 403"
    )


@pytest.fixture
def quick_server(server_env, tmp_path):
    """A Daphne on the session's database whose away hosts lose the seat after a second."""
    env = {**server_env, "HOST_AWAY_SECONDS": AWAY, "PRESENCE_HEARTBEAT_SECONDS": "0.5"}
    with servers.Daphne(env, tmp_path / "daphne.log") as server:
        yield server


def open_room(page: Page, home: str, nickname: str) -> str:
    page.goto(home)
    page.get_by_label("Your nickname").fill(nickname)
    page.locator('input[name="preset"][value="beginner"]').check()
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    wait_until_live(page)
    return page.url


def join(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join game").click()
    wait_until_live(page)


def test_talk_point_and_host_from_start_to_end(new_context, quick_server, screenshots):
    ana = new_context(reduced_motion="reduce").new_page()
    invite = open_room(ana, f"{quick_server.url}/", "Ana")
    bo = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    join(bo, invite, "Bo")
    cy = new_context(reduced_motion="reduce").new_page()
    cy.goto(invite + "watch/")
    wait_until_live(cy)
    expect(ana.locator("details.host-menu")).to_be_visible()
    expect(bo.locator("details.host-menu")).to_be_hidden()  # the host's alone

    # A phone pings with its Ping button; a reaction shows on the other screens.
    bo.locator("[data-ping-mode]").tap()
    cell(bo, 4, 4).tap()
    for page in (ana, cy):
        expect(ping_on(page, 4, 4, "1")).to_have_count(1)
    ana.get_by_role("button", name="React: waving").click()
    for page in (bo, cy):
        wave = page.locator('#signals .reaction[data-emote="wave"][data-seat="0"]')
        expect(wave).to_have_count(1)

    # Chat: the players' line reaches everyone, the spectator's the spectators' tab.
    say(ana, "Welcome!")
    for page in (bo, cy):
        expect(page.locator('#chat-players .chat-message[data-author="Ana"]')).to_have_count(1)
    say(cy, "Nice board")
    line = ana.locator("#chat-spectators .chat-message[data-channel='spectators']")
    expect(line).to_have_count(1)
    tag = line.locator(".chat-handle").inner_text()  # "#1a2b", as the host menu lists them

    # The host's menu, by keyboard: open it, look at it, light and dark.
    summary = ana.locator("details.host-menu summary")
    summary.focus()
    ana.keyboard.press("Enter")
    menu = ana.locator("#host-menu")
    kick = menu.get_by_role("button", name=f"Kick Spectator {tag} (out for 10 minutes)")
    expect(menu.get_by_role("button", name="Lock the room")).to_be_visible()
    expect(kick).to_be_visible()
    menu.scroll_into_view_if_needed()
    audit(ana, screenshots, "host-menu")

    # Kick the spectator: their page says why, and they cannot come back.
    kick.click()
    expect(cy.locator("#connection")).to_contain_text("The host removed you from this room")
    expect(ana.locator("#host-notice")).to_have_text("Ana removed a spectator from the room.")
    expect(bo.locator("#host-notice")).to_have_text("Ana removed a spectator from the room.")
    cy.reload()
    expect(cy.locator("#kicked-reason")).to_contain_text("come back in 10 minutes")

    # Lock the room: the focus stays on the switch; a newcomer is refused.
    lock = menu.get_by_role("button", name="Lock the room")
    lock.focus()
    ana.keyboard.press("Enter")
    expect(lock).to_have_attribute("aria-pressed", "true")
    expect(lock).to_be_focused()
    expect(bo.locator("#host-notice")).to_contain_text("Ana locked the room")
    dee = new_context().new_page()
    dee.goto(invite)
    expect(dee.get_by_text("The host locked this room: no new players.")).to_be_visible()
    expect(dee.get_by_label("Nickname")).to_have_count(0)

    # The host leaves: a second later the seat passes to Bo, and everyone is told.
    ana.context.close()
    notice = "Ana has been away: Bo is the host now."
    expect(bo.locator("#host-notice")).to_have_text(notice, timeout=15_000)
    expect(bo.locator('#roster .roster-player[data-seat="1"] .badge.host')).to_have_text("host")
    bo.locator("details.host-menu summary").tap()
    expect(bo.get_by_role("button", name="Lock the room")).to_have_attribute("aria-pressed", "true")
    bo.locator("#host-menu").scroll_into_view_if_needed()
    audit(bo, screenshots, "host-menu-phone")
    bo.get_by_role("button", name="Lock the room").tap()  # Bo unlocks: Dee may join now
    expect(bo.locator("#host-notice")).to_have_text("Bo opened the room to new players.")
    join(dee, invite, "Dee")
    expect(bo.locator('#roster .roster-player[data-seat="2"]')).to_contain_text("Dee")
    for page in (bo, cy, dee):  # before this test's server stops under them
        page.context.close()
