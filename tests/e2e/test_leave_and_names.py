"""Leaving and names, in real browsers (issue 35, points 3 and 4): Ana hosts on a laptop, Bo
joins on a phone in dark mode, Cy watches and takes a name in chat; Ana opens the invite's QR
code; Bo leaves and lands on the watch page while Ana's roster drops him. axe finds nothing
critical or serious on the pages this changed; screenshots (laptop, phone, dark) under
artifacts/ when SCREENSHOTS=1."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.helpers.e2e.site import screenshot

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "color_scheme": "dark",
}
AXE = Axe()


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


def audit(page: Page, name: str, screenshots) -> None:
    """No critical or serious axe violation, in light and dark; a screenshot of each."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        found = AXE.run(page).response["violations"]
        screenshot(page, screenshots / f"leave-{name}-{scheme}.png", full_page=True)
        blocking = [
            f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
            for v in found
            if v["impact"] in ("critical", "serious")
        ]
        assert not blocking, f"{name}, {scheme}: {blocking}"


def test_a_player_leaves_and_a_spectator_takes_a_name(new_context, screenshots):
    ana = new_context(**LAPTOP, reduced_motion="reduce").new_page()
    ana.goto("/")
    ana.get_by_label("Your nickname").fill("Ana")
    ana.locator('input[name="preset"][value="beginner"]').check()
    ana.get_by_role("button", name="Create room").click()
    expect(ana).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(ana)
    code = ana.locator(".room").get_attribute("data-room")

    bo = new_context(**PHONE, reduced_motion="reduce").new_page()
    bo.goto(f"/r/{code}/")
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    live(bo)
    expect(ana.locator('#roster .roster-player[data-seat="1"]')).to_have_count(1)

    cy = new_context(**LAPTOP, reduced_motion="reduce").new_page()
    cy.goto(f"/r/{code}/watch/")
    live(cy)
    expect(cy.locator("#spectator-name")).to_be_visible()
    expect(cy.get_by_text("QR code")).to_have_count(0)  # never on the watch page
    cy.get_by_label("Name yourself in chat").fill("Ana")  # a player's name: refused, to Cy
    cy.get_by_role("button", name="Use name").click()
    expect(cy.locator("#room-error")).to_contain_text("a player's name in this room")
    cy.get_by_label("Name yourself in chat").fill("Cy")
    cy.get_by_role("button", name="Use name").click()
    expect(cy.locator("#spectator-name")).to_contain_text("Your chat lines read Cy")
    cy.locator("#chat-text").fill("go Ana!")
    cy.locator(".chat-form button").click()
    line = ana.locator('#chat-spectators .chat-message[data-author="Cy"]')
    expect(line).to_have_count(1)
    expect(line).to_contain_text("spectator #")
    expect(ana.locator("#host-menu")).to_contain_text("Cy #")  # the host can name (mute) Cy
    audit(cy, "spectator-named", screenshots)

    share = ana.locator("[data-share]")
    has_share = ana.evaluate("typeof navigator.share === 'function'")
    expect(share).to_be_visible() if has_share else expect(share).to_be_hidden()
    ana.get_by_text("QR code").click()
    qr = ana.get_by_alt_text("QR code of the invite link")
    expect(qr).to_be_visible()
    expect(qr).to_have_js_property("complete", True)
    assert qr.evaluate("(image) => image.naturalWidth") > 0
    audit(ana, "host-qr", screenshots)
    audit(bo, "phone-player", screenshots)

    bo.get_by_role("button", name="Leave room").click()
    expect(bo).to_have_url(re.compile(rf"/r/{code}/watch/$"))
    live(bo)
    expect(bo.get_by_role("button", name="Leave room")).to_have_count(0)
    expect(ana.locator('#roster .roster-player[data-seat="1"]')).to_have_count(0)
    expect(ana.locator("#host-notice")).to_contain_text("Bo left the room.")
    expect(cy.locator("#host-notice")).to_contain_text("Bo left the room.")
    audit(bo, "phone-after-leaving", screenshots)
    audit(ana, "host-after-bo-left", screenshots)
