"""The container's own Daphne command line (the Dockerfile's CMD), run here on 127.0.0.1.

Options in the image change how every socket behaves, and compose cannot run in the test
environment, so the command's options are taken from the Dockerfile itself.
"""

import asyncio

import pytest
import websockets

from tests.helpers import servers
from tests.helpers.clients import HttpSession, api
from tests.helpers.deploy import dockerfile_daphne_options
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne

pytestmark = pytest.mark.integration


@pytest.fixture
def container_daphne(tmp_path):
    try:
        env = servers.migrated_database_env(tmp_path, "container")
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    try:
        with Daphne(env, tmp_path / "daphne.log", options=dockerfile_daphne_options()) as daphne:
            yield daphne
    finally:
        servers.drop_database(env)


async def test_the_container_command_sends_the_largest_snapshots_and_cascades(container_daphne):
    """A 50x50 board: its snapshot (~0.5 MB) and its first cascade (~0.18 MB) are the biggest
    messages."""
    daphne = container_daphne
    status, room = await asyncio.to_thread(
        api, daphne.url, "POST", "/api/rooms", {"width": 50, "height": 50, "mines": 1}
    )
    assert status == 201, room
    url = f"{daphne.ws_url}/ws/r/{room['code']}/?watch=1"
    async with websockets.connect(url, origin=daphne.url, max_size=None) as socket:
        snapshot = await asyncio.wait_for(socket.recv(), 10)
        assert (
            'id="board"' in snapshot and len(snapshot) > 250_000
        )  # a 50x50 board, compact (issue 35)
        status, moved = await asyncio.to_thread(
            api,
            daphne.url,
            "POST",
            f"/api/rooms/{room['code']}/moves",
            {"action": "reveal", "x": 25, "y": 25},
            room["player_token"],
        )
        assert status == 200 and len(moved["changed"]) > 2000
        while 'data-version="1"' not in (cascade := await asyncio.wait_for(socket.recv(), 10)):
            pass  # roster updates
        assert len(cascade) > 150_000  # lean cells (issue 17): about 70 bytes each, 2,500 of them
    assert HttpSession(daphne.url).request("/healthz")[0] == 200
