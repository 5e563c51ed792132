"""Room chat in Chromium: two players and a spectator talk; a line reaches the players' tab and,
in the spectators' tab, the spectators' line; text stays text; keyboard only; axe clean in light
and dark, and the panel folds on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.helpers.e2e.accessibility import audit, calm_page
from tests.helpers.e2e.chat import say
from tests.helpers.e2e.race import create_race
from tests.helpers.e2e.rooms import create_room, invite_link, join_room, wait_until_live

pytestmark = pytest.mark.e2e


def test_two_players_and_a_spectator_chat(new_context, screenshots):
    ana = calm_page(new_context)
    code = create_room(ana, "Ana")
    bo = join_room(new_context(reduced_motion="reduce"), invite_link(ana), "Bo")
    viewer = calm_page(new_context)
    viewer.goto(f"/r/{code}/watch/")
    wait_until_live(viewer)

    say(ana, "Hello <b>Bo</b> https://example.com")
    for page in (ana, bo):
        line = page.locator('#chat-players .chat-message[data-author="Ana"]')
        expect(line).to_have_attribute("data-channel", "players")
        expect(line.locator(".chat-text")).to_have_text("Hello <b>Bo</b> https://example.com")
        expect(line.locator("b.chat-author")).to_have_count(1)  # the name, not the typed <b>
        expect(line.locator("a")).to_have_count(0)  # never linkified
    viewer.get_by_role("tab", name="Players").click()
    expect(viewer.locator("#chat-players .chat-message")).to_have_count(1)

    viewer.get_by_role("tab", name="Spectators").click()
    say(viewer, "Nice opening")
    line = '#chat-spectators .chat-message[data-channel="spectators"]'
    said = re.compile(r"^Spectator #[0-9a-f]{4} Nice opening$")  # a tag the host may name
    expect(viewer.locator(line)).to_have_text(said)
    bo.get_by_role("tab", name="Spectators").press("Enter")
    expect(bo.locator(line)).to_have_text(said)
    bo.get_by_role("tab", name="Spectators").press("ArrowLeft")  # back to Players, by keyboard
    expect(bo.get_by_role("tab", name="Players")).to_have_attribute("aria-selected", "true")
    expect(bo.get_by_role("tab", name="Players")).to_be_focused()

    bo.get_by_role("button", name="Hide spectators").click()
    expect(bo.get_by_role("tab", name="Spectators")).to_be_hidden()

    # A line sent again by a reload's snapshot is shown once.
    ana.reload()
    wait_until_live(ana)
    expect(ana.locator("#chat-players .chat-message")).to_have_count(1)

    audit(ana, screenshots, "chat-player")
    audit(viewer, screenshots, "chat-spectator")


def test_the_chat_folds_on_a_phone(new_context, screenshots):
    phone = new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce").new_page()
    create_room(phone, "Ana")
    fold = phone.locator(".chat-fold")
    expect(fold).not_to_have_attribute("open", "")
    phone.locator(".chat-fold > summary").click()
    expect(fold).to_have_attribute("open", "")
    say(phone, "from my phone")
    expect(phone.locator("#chat-players .chat-message")).to_have_count(1)
    phone.locator("#chat").scroll_into_view_if_needed()
    for scheme in ("light", "dark"):
        phone.emulate_media(color_scheme=scheme)
        phone.screenshot(path=screenshots / f"chat-phone-{scheme}.png", animations="disabled")


@pytest.mark.parametrize("game", ["race", "tictactoe", "flags"])
def test_every_kinds_room_has_the_chat(new_context, screenshots, game):
    page = calm_page(new_context)
    if game == "race":
        create_race(page, "Ana")
    else:
        page.goto("/")
        page.locator(f'input[name="game"][value="{game}"]').check()
        page.get_by_label("Your nickname").fill("Ana")
        page.get_by_role("button", name="Create room").click()
        expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
        expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    say(page, f"hello from {game}")
    line = page.locator('#chat-players .chat-message[data-author="Ana"]')
    expect(line.locator(".chat-author")).to_have_text("Ana")
    expect(line.locator(".badge.guest")).to_have_text("guest")  # Ana plays without an account
    expect(line.locator(".chat-text")).to_have_text(f"hello from {game}")
    audit(page, screenshots, f"chat-{game}")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.locator("#chat").screenshot(path=screenshots / f"chat-{game}-{scheme}.png")
