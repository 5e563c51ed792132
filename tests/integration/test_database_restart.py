"""Moves go on after PostgreSQL drops every connection of the app, as a restart or a failover does.

`RoomConsumer.dispatch` skips Channels' `aclose_old_connections()` before each message (the
`dispatch` speed shortcut, `SPEED_SHORTCUTS`). That call only closes connections Django already
knows are broken or too old, and `database_sync_to_async`, which every database call of the
consumer goes through, makes the same check before and after each call. Channels' test
communicator turns both into no-ops, so only a real Daphne can show it: here one with the
shortcut and one without, each on a database of its own, whose backends are terminated under an
open socket (`pg_terminate_backend` on that database alone: other runs share the server).
Both behave alike: a move or two is refused with "nothing changed" while the pool discards its
dropped connections (two, when measured), and then every move goes through.
"""

import asyncio
import json

import psycopg
import pytest
import websockets

from tests.helpers import servers
from tests.helpers.clients import HttpSession
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne, GameDatabase

pytestmark = pytest.mark.integration

SOMETHING_WENT_WRONG = "Something went wrong on the server; nothing changed."
ATTEMPTS = 12
"""More than the connections the app's pool may hold (`DATABASE_POOL_SIZE`, 10): each dropped
one fails at most one call before the pool discards it."""
ALL_BUT_DISPATCH = "frames"


@pytest.fixture(scope="module", params=["on", ALL_BUT_DISPATCH], ids=["shortcut", "channels"])
def daphne(request, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("database-restart")
    try:
        env = servers.database_env(folder, "restart", SPEED_SHORTCUTS=request.param)
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    if "DATABASE_URL" not in env:
        skip_or_fail("terminating the app's connections needs PostgreSQL (DATABASE_URL)")
    server = Daphne(env, folder / "daphne.log")
    try:
        servers.migrate(env)
        with server:
            yield server
    finally:
        servers.drop_database(env)


def terminate_backends(url: str) -> int:
    """Every other backend of the app's database, as a restart would end them; how many."""
    with psycopg.connect(url, autocommit=True) as admin:
        return admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()[0]


async def reply_to(socket, version: int) -> str:
    """The next message that shows `version` or the error that says nothing changed."""
    while True:
        message = await asyncio.wait_for(socket.recv(), servers.START_SECONDS)
        if f'data-version="{version}"' in message or SOMETHING_WENT_WRONG in message:
            return message


async def flag_until_applied(socket, cells: list, version: int) -> int:
    """Flag the next cell until one is applied as `version`; how many were refused first."""
    for refused in range(ATTEMPTS):
        x, y = cells.pop()
        await socket.send(json.dumps({"action": "flag", "x": x, "y": y}))
        if f'data-version="{version}"' in await reply_to(socket, version):
            return refused
    raise AssertionError(f"no move applied in {ATTEMPTS} attempts after the restart")


async def test_moves_go_on_after_postgresql_drops_the_apps_connections(daphne: Daphne):
    player = HttpSession(daphne.url)
    code = player.create_room("Ana")
    database = GameDatabase(daphne.env)
    async with websockets.connect(
        f"{daphne.ws_url}/ws/r/{code}/",
        origin=daphne.url,
        additional_headers={"Cookie": player.cookie_header},
    ) as socket:
        await socket.send(json.dumps({"action": "reveal", "x": 4, "y": 4}))
        await reply_to(socket, 1)
        cells = database.hidden_safe_cells(code)

        assert terminate_backends(database.url) >= 1  # the pool keeps one at least

        refused = await flag_until_applied(socket, cells, version=2)
        # Recovered: the next move goes through at once, on a fresh connection.
        assert await flag_until_applied(socket, cells, version=3) == 0
    game = database.game(code)
    assert game["version"] == 3 and len(database.moves(game["id"])) == 3  # refused: unwritten
    assert refused < ATTEMPTS
