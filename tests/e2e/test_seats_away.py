"""A tic-tac-toe player closes their page: after the (shortened) grace period the one who
stayed sees "Claim the win", a spectator only hears the seat is free, and the claim wins.
Both screens pass axe (tests/e2e/test_accessibility.py) while the notice shows."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import servers
from tests.helpers.e2e.accessibility import audit
from tests.helpers.e2e.tictactoe import create_room, square, wait_until_live

pytestmark = pytest.mark.e2e

GRACE = "1"
"""Seconds (SEAT_GRACE_SECONDS) a seat waits for its player: short, so the test waits little."""


@pytest.fixture
def quick_server(server_env, tmp_path):
    """A Daphne on the session's database whose seats are freed after one second."""
    env = {**server_env, "SEAT_GRACE_SECONDS": GRACE}
    with servers.Daphne(env, tmp_path / "daphne.log") as server:
        yield server


def join(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join game").click()
    wait_until_live(page)


def ana_and_bo(new_context, server) -> tuple[Page, str, object]:
    """Ana's page (X, the host), the invite link, and Bo's browser context (O), both seated."""
    ana = new_context().new_page()
    create_room(ana, "Ana", x="human", o="human", home=f"{server.url}/")
    invite = ana.locator("#invite-link").input_value()
    bo_context = new_context()
    join(bo_context.new_page(), invite, "Bo")
    return ana, invite, bo_context


def test_the_player_who_stayed_claims_the_win(new_context, quick_server, screenshots):
    ana, invite, bo_context = ana_and_bo(new_context, quick_server)
    watcher = new_context().new_page()
    watcher.goto(invite.rstrip("/") + "/watch/")
    wait_until_live(watcher)
    square(ana, 4).click()
    expect(square(watcher, 4)).to_have_attribute("data-mark", "X")

    bo_context.close()  # Bo closes his page: his only socket goes
    claim = ana.get_by_role("button", name="Claim the win")
    expect(claim).to_be_visible()
    expect(ana.locator("#status")).to_contain_text("Bo left — you may claim the win.")
    expect(watcher.locator("#status")).to_contain_text("Bo left — the seat is free.")
    expect(watcher.get_by_role("button", name="Claim the win")).to_be_hidden()
    audit(ana, screenshots, "tictactoe-claim-the-win")  # axe, light and dark
    audit(watcher, screenshots, "tictactoe-seat-free-watching")

    claim.click()
    expect(ana.locator("#board")).to_have_attribute("data-status", "won")
    expect(ana.locator("#status")).to_have_text(re.compile("You win!"))
    expect(watcher.locator("#status")).to_contain_text("Ana wins! (Bo left)")
    expect(claim).to_have_count(0)


def test_a_visitor_takes_the_free_seat_and_plays_on(new_context, quick_server):
    ana, invite, bo_context = ana_and_bo(new_context, quick_server)
    cy = new_context().new_page()
    join(cy, invite, "Cy")
    expect(cy.get_by_text("both seats taken")).to_be_visible()
    take = cy.get_by_role("button", name="Take Bo's seat")
    expect(take).to_be_hidden()

    bo_context.close()
    take.click()  # auto-waits for the button to show once the seat is free
    expect(cy.locator("#narration")).to_contain_text("Cy took the free seat and plays O.")
    expect(cy.get_by_text("Playing as Cy")).to_be_visible()
    expect(ana.get_by_role("button", name="Take Bo's seat")).to_have_count(0)
    square(ana, 4).click()
    expect(cy.locator("#status")).to_contain_text("Your turn")
    square(cy, 0).click()
    expect(square(ana, 0)).to_have_attribute("data-mark", "O")


def test_a_spectator_on_the_watch_link_joins_to_take_the_free_seat(new_context, quick_server):
    ana, invite, bo_context = ana_and_bo(new_context, quick_server)
    watcher = new_context().new_page()
    watcher.goto(invite.rstrip("/") + "/watch/")
    wait_until_live(watcher)
    offer = watcher.get_by_role("link", name="Join to take Bo's seat")
    expect(offer).to_be_hidden()

    bo_context.close()
    offer.click()  # auto-waits for the link to show once the seat is free
    expect(watcher.get_by_text("seats are taken")).to_have_count(0)  # a seat is free: asked a name
    join(watcher, watcher.url, "Cy")
    watcher.get_by_role("button", name="Take Bo's seat").click()
    expect(watcher.get_by_text("Playing as Cy")).to_be_visible()
    expect(ana.locator("#narration")).to_contain_text("Cy took the free seat and plays O.")
