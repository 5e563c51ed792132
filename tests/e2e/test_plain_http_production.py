"""Production settings over plain HTTP, under a real host name, as docker-compose.yml serves them.

DEBUG=false with BEHIND_TLS=false: the cookies must not be Secure-only, or Chromium never sends
the CSRF cookie back over http:// and creating a room fails with 403 "CSRF cookie not set".
(On localhost Chromium treats http as secure, which hid this: the test uses `mines.test`.)
"""

import os
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Playwright, expect

from tests.helpers import servers
from tests.helpers.e2e.rooms import create_room
from tests.helpers.e2e.site import CHROMIUM, CHROMIUM_ARGS
from tests.helpers.environment import skip_or_fail

pytestmark = pytest.mark.e2e

HOST_NAME = "mines.test"


@pytest.fixture
def production_server(tmp_path) -> Iterator[servers.Daphne]:
    try:
        env = servers.migrated_database_env(
            tmp_path,
            "plainhttp",
            DEBUG="false",
            SECRET_KEY="a-production-secret-for-the-plain-http-test-0123456789abcdef",
            ALLOWED_HOSTS=HOST_NAME,
            BEHIND_TLS="false",
            CSRF_TRUSTED_ORIGINS="",
        )
    except servers.ServiceUnavailable as error:
        skip_or_fail(f"{error} (browser tests)")
    try:
        with servers.Daphne(env, tmp_path / "daphne.log") as server:
            yield server
    finally:
        servers.drop_database(env)


def test_a_room_is_created_over_plain_http_with_production_settings(
    playwright: Playwright, production_server: servers.Daphne
):
    if not os.access(CHROMIUM, os.X_OK):
        skip_or_fail(f"{CHROMIUM} is missing: install Debian's chromium (make browser)")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST_NAME} {servers.HOST}"],
    )
    try:
        base_url = f"http://{HOST_NAME}:{production_server.port}"
        page = browser.new_context(base_url=base_url).new_page()
        code = create_room(page, "Ana")
        expect(page).to_have_url(re.compile(rf"^{re.escape(base_url)}/r/{code}/$"))
        expect(page.locator("#board")).to_be_visible()
    finally:
        browser.close()
