"""The home page's "On now" in Chromium (issue 28): a public game being played shows on another
browser's home page, small and live; a move reaches it; its link opens the watch page."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.accessibility import audit
from tests.helpers.e2e.rooms import PHONE, cell, create_room, next_safe_cell, shot

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`


def home_featuring(page: Page, code: str) -> None:
    """The home page, until it features `code`: an earlier test's room gives way within the
    server's second (the pick is kept that long per process) once nobody plays in it."""
    link = page.locator("#on-now a.button.primary")
    for _ in range(20):
        page.goto("/")
        if link.count() and link.get_attribute("href") == f"/r/{code}/watch/":
            break
        page.wait_for_timeout(500)  # the pick is read afresh once a second per process
    expect(link).to_have_attribute("href", f"/r/{code}/watch/")
    expect(page.locator("#on-now #connection")).to_have_attribute("data-state", "live")


def test_the_featured_game_updates_live_and_opens_full_size(new_context, game_db, screenshots):
    host = new_context().new_page()
    code = create_room(host, "Ana", preset="intermediate")
    viewer = new_context(reduced_motion="reduce").new_page()
    home_featuring(viewer, code)
    panel = viewer.locator("#on-now")
    expect(panel.locator("#cell-0-0")).to_have_attribute("data-state", "hidden")
    expect(panel).to_contain_text("Ana")

    cell(host, 8, 8).click()  # the first reveal opens an area
    expect(panel.locator("#cell-8-8")).to_have_attribute("data-state", "revealed")
    x, y = next_safe_cell(game_db, code)
    cell(host, x, y).click()
    expect(panel.locator(f"#cell-{x}-{y}")).to_have_attribute("data-state", "revealed")
    expect(panel.locator(f"#cell-{x}-{y}")).to_have_text(cell(host, x, y).inner_text())
    expect(panel.locator(f"#cell-{x}-{y}")).to_have_class(re.compile(r"\bcell\b"))  # kept in place
    assert panel.locator('[data-state="mine"]').count() == 0  # never a hidden mine

    audit(viewer, screenshots, "home-on-now")
    shot(viewer, screenshots, "home-on-now-panel", clip=panel.bounding_box())
    phone = new_context(viewport=PHONE, color_scheme="dark", reduced_motion="reduce").new_page()
    home_featuring(phone, code)
    phone.locator("#on-now").scroll_into_view_if_needed()
    shot(phone, screenshots, "home-on-now-phone-dark")
    phone.close()

    panel.get_by_role("link", name=re.compile("Watch full size")).click()
    expect(viewer).to_have_url(re.compile(rf"/r/{re.escape(code)}/watch/$"))
    expect(viewer.locator(f"#cell-{x}-{y}")).to_have_attribute("data-state", "revealed")
