"""A room its host deletes over the API: every page in it, a player's and a spectator's, says so
and stops reconnecting (4404), on a phone and a desktop, light and dark."""

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.helpers.e2e.rooms import shot, wait_until_live

pytestmark = pytest.mark.e2e


def api(base: str, method: str, path: str, body=None, token=None):
    request = urllib.request.Request(base + path, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(request, data) as answer:
        return answer.status, json.loads(answer.read() or b"null")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_watchers_of_a_deleted_room_are_told(new_context, live_server_url, screenshots, scheme):
    _, room = api(live_server_url, "POST", "/api/rooms", {"preset": "beginner", "name": "Hana"})
    phone = new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme).new_page()
    desktop = new_context(color_scheme=scheme).new_page()
    for page in (phone, desktop):
        page.goto(f"/r/{room['code']}/watch/")
        wait_until_live(page)
    status, _ = api(
        live_server_url, "DELETE", f"/api/rooms/{room['code']}", token=room["player_token"]
    )
    assert status == 204
    for name, page in (("phone", phone), ("desktop", desktop)):
        # The server's reason is the one message, on the connection line (issue 35).
        expect(page.locator("#connection")).to_have_text("The host closed this room.")
        expect(page.locator("#connection")).to_have_attribute("data-state", "closed")
        shot(page, screenshots, f"room-deleted-{name}-{scheme}")
