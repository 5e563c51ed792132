"""Pings and reactions in Chromium (issue 28): two players and a spectator see each other's, a
phone pings through the long-press menu and still flags in one tap in tap-flag mode, and the
pages stay axe-clean with a ping on show, light and dark."""

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.accessibility import BLOCKING, report, violations
from tests.helpers.e2e.flags import cell as flags_cell
from tests.helpers.e2e.flags import create_room as create_flags
from tests.helpers.e2e.rooms import (
    PHONE,
    cell,
    create_room,
    invite_link,
    join_room,
    wait_until_live,
)
from tests.helpers.e2e.signals import HOLD_MS, ping_on
from tests.helpers.e2e.touch import touch

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

"""A finger resting past the page's 450 ms long press."""


def watcher_of(new_context, host: Page) -> Page:
    viewer = new_context().new_page()
    viewer.goto(host.get_by_role("link", name="Watch link").get_attribute("href"))
    wait_until_live(viewer)
    return viewer


def test_two_players_and_a_spectator_see_pings_and_reactions(new_context, screenshots):
    ana = new_context(reduced_motion="reduce").new_page()
    create_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    cy = watcher_of(new_context, ana)
    expect(cy.locator(".reactions")).to_have_count(0)  # a spectator is offered none

    cell(bo, 6, 2).click(modifiers=["Alt"])  # Alt-click pings; it reveals nothing
    for page in (ana, bo, cy):
        expect(ping_on(page, 6, 2, "1")).to_have_count(1)
        expect(cell(page, 6, 2)).to_have_attribute("data-ping", "1")
    expect(ana.locator("#signal-news")).to_have_text("Bo pinged row 3, column 7")
    expect(cell(ana, 6, 2)).to_have_attribute("data-state", "hidden")

    cell(ana, 1, 1).focus()
    ana.keyboard.press("p")  # P on the focused cell
    expect(ping_on(bo, 1, 1, "0")).to_have_count(1)
    expect(cell(cy, 1, 1)).to_have_attribute("data-ping", "0")

    cell(bo, 5, 5).hover()
    expect(cell(ana, 5, 5)).to_have_attribute("data-cursor", "1")
    bo.get_by_role("button", name="React: waving").click()
    expect(cell(ana, 5, 5)).to_have_attribute("data-reaction", "👋")  # on Bo's pointer too
    for page in (ana, bo, cy):
        reaction = page.locator('#signals .reaction[data-emote="wave"][data-seat="1"]')
        expect(reaction).to_have_count(1)
        badge = page.locator('#roster .roster-player[data-seat="1"] .reaction-badge')
        expect(badge).to_have_text("👋")
    expect(cy.locator("#signal-news")).to_have_text("Bo reacted: waving")
    # About 3 s later both are gone again.
    expect(cell(ana, 6, 2)).not_to_have_attribute("data-ping", "1", timeout=6000)
    expect(ana.locator(".reaction-badge")).to_have_count(0, timeout=6000)

    failures = []
    for scheme in ("light", "dark"):
        ana.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        cell(bo, 3, 4).click(modifiers=["Alt"])
        bo.get_by_role("button", name="React: celebrating").click()
        expect(cell(ana, 3, 4)).to_have_attribute("data-ping", "1")
        ana.mouse.move(0, 0)
        ana.screenshot(path=screenshots / f"ping-{scheme}.png", animations="disabled")
        blocking = [v for v in violations(ana) if v["impact"] in BLOCKING]
        if blocking:
            failures.append(f"{scheme}:\n{report(blocking)}")
    assert not failures, "axe found critical or serious violations:\n" + "\n".join(failures)


def test_a_phone_flags_with_a_long_press_pings_with_the_ping_button_and_tap_flag_mode_flags(
    new_context, screenshots
):
    """A long press flags in one press (a Flag/Ping menu made every flag two taps, issue 35);
    the Ping button arms the next tap to ping."""
    ana = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    create_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    cdp = ana.context.new_cdp_session(ana)
    target = cell(ana, 4, 6)
    target.scroll_into_view_if_needed()

    touch(cdp, target, "touchStart")
    ana.wait_for_timeout(HOLD_MS)
    touch(cdp, target, "touchEnd")
    expect(cell(bo, 4, 6)).to_have_attribute("data-state", "flagged")
    expect(ana.get_by_role("menu")).to_have_count(0)

    ping = ana.locator("[data-ping-mode]")
    ping.tap()
    expect(ping).to_have_attribute("aria-pressed", "true")
    ana.screenshot(path=screenshots / "ping-button-phone.png", animations="disabled")
    blocking = [v for v in violations(ana) if v["impact"] in BLOCKING]
    assert not blocking, report(blocking)
    cell(ana, 2, 2).tap()
    expect(ping_on(bo, 2, 2, "0")).to_have_count(1)
    expect(ping).to_have_attribute("aria-pressed", "false")  # one ping a press
    expect(cell(bo, 2, 2)).to_have_attribute("data-state", "hidden")

    # Tap-flag mode: one tap flags, as before pings.
    ana.locator("[data-tap-mode]").tap()
    cell(ana, 8, 8).tap()
    expect(cell(bo, 8, 8)).to_have_attribute("data-state", "flagged")


def test_in_flags_a_phone_long_press_pings_and_a_tap_still_opens(new_context):
    """Flags has no flags: a long press pings, and a short tap opens the cell."""
    ana = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    create_flags(ana, "Ana", "human", "easy")
    cdp = ana.context.new_cdp_session(ana)
    target = flags_cell(ana, (15, 15))
    target.scroll_into_view_if_needed()
    touch(cdp, target, "touchStart")
    ana.wait_for_timeout(HOLD_MS)
    touch(cdp, target, "touchEnd")
    expect(ana.locator('#signals .ping[data-x="15"][data-y="15"]')).to_have_count(1)
    expect(target).to_have_attribute("data-state", "hidden")
    flags_cell(ana, (0, 0)).tap()
    expect(flags_cell(ana, (0, 0))).not_to_have_attribute("data-state", "hidden")
