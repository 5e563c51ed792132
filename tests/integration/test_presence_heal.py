"""Presence heals by itself after a process dies without a goodbye (issue 14, item 7).

Two real Daphne processes share one database (PostgreSQL in CI, a SQLite file here); players and
spectators are connected to both; one is killed with SIGKILL, as the kernel's out-of-memory
killer would. Its sockets must leave the counts within the heartbeat's expiry, through the
survivor's heartbeat, without any request touching the dead process's rows.
"""

import asyncio
import contextlib
import signal
import time

import pytest
import websockets

from tests.helpers import servers
from tests.helpers.clients import HttpSession, LiveClient, api, running
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne, GameDatabase

pytestmark = pytest.mark.integration

HEARTBEAT_SECONDS = 1
EXPIRY_SECONDS = 3
HEAL_SECONDS = EXPIRY_SECONDS + HEARTBEAT_SECONDS + 4
"""Expiry plus one beat is the design's bound; the rest is room for a busy machine."""


def online(server: Daphne, code: str) -> list[bool]:
    status, body = api(server.url, "GET", f"/api/rooms/{code}")
    assert status == 200, body
    return [player["online"] for player in sorted(body["players"], key=lambda p: p["seat"])]


def spectators(db: GameDatabase, code: str) -> int:
    return db.query("SELECT spectators FROM games_room WHERE code = {p}", code)[0][0]


def live_list(server: Daphne) -> str:
    status, page, _ = HttpSession(server.url).request("/rooms/live/")
    assert status == 200, status
    return page


async def wait_for(condition, seconds: float, what: str) -> float:
    """Seconds until `condition()` holds (polling the servers, bounded by `seconds`)."""
    start = time.monotonic()
    while not await asyncio.to_thread(condition):
        assert time.monotonic() - start < seconds, f"not within {seconds}s: {what}"
        await asyncio.sleep(0.2)
    return time.monotonic() - start


async def test_a_killed_process_leaves_the_presence_counts_within_the_expiry(tmp_path):
    try:
        env = servers.migrated_database_env(
            tmp_path,
            "heal",
            PRESENCE_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
            PRESENCE_EXPIRY_SECONDS=str(EXPIRY_SECONDS),
        )
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    a = Daphne(env, tmp_path / "a.log")
    b = Daphne(env, tmp_path / "b.log")
    db = GameDatabase(env)
    try:
        a.start()
        b.start()
        await killed_process_heals(a, b, db)
    finally:
        a.stop()
        b.stop(signal.SIGKILL)
        servers.drop_database(env)


async def killed_process_heals(a: Daphne, b: Daphne, db: GameDatabase) -> None:
    host = HttpSession(a.url)
    shared = await asyncio.to_thread(host.create_room, "Ana")  # players on both processes
    guest = HttpSession(b.url)
    await asyncio.to_thread(guest.join, shared, "Bo")
    owner = HttpSession(b.url)
    lonely = await asyncio.to_thread(owner.create_room, "Cy")  # only on the doomed process

    survivors = [
        LiveClient("Ana@A", a.ws_url, shared, host.cookie_header),
        LiveClient("watcher@A", a.ws_url, shared),
    ]
    doomed = [
        LiveClient("Bo@B", b.ws_url, shared, guest.cookie_header),
        LiveClient("watcher@B", b.ws_url, shared),
        LiveClient("Cy@B", b.ws_url, lonely, owner.cookie_header),
        LiveClient("watcher2@B", b.ws_url, lonely),
    ]
    async with running(*survivors, *doomed):
        # A socket's snapshot comes before its presence is written: wait for the counts of both
        # rooms (a CI run once read the lonely room's before process B had written them).
        await wait_for(
            lambda: (
                (online(a, shared), spectators(db, shared)) == ([True, True], 2)
                and (online(a, lonely), spectators(db, lonely)) == ([True], 1)
            ),
            5,
            "everyone counted in both rooms",
        )
        assert lonely in live_list(a)

        b.stop(signal.SIGKILL)
        healed = await wait_for(
            lambda: (
                online(a, shared) == [True, False]
                and spectators(db, shared) == 1
                and online(a, lonely) == [False]
                and spectators(db, lonely) == 0
            ),
            HEAL_SECONDS,
            "the killed process's sockets leave the counts",
        )
        print(f"presence healed {healed:.1f}s after SIGKILL")
        page = live_list(a)
        assert lonely not in page, "a room of phantoms is still live"
        assert shared in page
        assert all(client.connected for client in survivors)

        # A clean stop leaves nothing for the others to sweep: its row and counts go at once.
        assert a.stop(signal.SIGTERM) == 0, a.log_tail()
    assert db.query("SELECT COUNT(*) FROM games_serverprocess") == [(0,)]
    assert db.query("SELECT COUNT(*) FROM games_presence") == [(0,)]
    assert online_in_db(db, shared) == [0, 0] and spectators(db, shared) == 0
    assert healed <= HEAL_SECONDS


def online_in_db(db: GameDatabase, code: str) -> list[int]:
    query = (
        "SELECT p.connections FROM games_player p JOIN games_room r ON r.id = p.room_id"
        " WHERE r.code = {p} ORDER BY p.number"
    )
    return [row[0] for row in db.query(query, code)]


async def test_a_racer_on_a_killed_process_is_away_and_the_race_goes_on(tmp_path):
    """The sweep tells the race, as a closing socket would: the stranded racer is away (their
    grace period runs), so a race with no time limit can still end."""
    try:
        env = servers.migrated_database_env(
            tmp_path,
            "strand",
            PRESENCE_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
            PRESENCE_EXPIRY_SECONDS=str(EXPIRY_SECONDS),
        )
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    a, b = Daphne(env, tmp_path / "a.log"), Daphne(env, tmp_path / "b.log")
    db = GameDatabase(env)
    try:
        a.start()
        b.start()
        race = {"game": "minesweeper", "mode": "race", "width": 9, "height": 9, "mines": 10}
        status, created = api(a.url, "POST", "/api/rooms", {**race, "name": "Ana"})
        assert status == 201, created
        code, ana = created["code"], created["player_token"]
        status, joined = api(a.url, "POST", f"/api/rooms/{code}/join", {"name": "Bo"})
        assert status == 200, joined
        async with bot_socket(a, code, ana), bot_socket(b, code, joined["player_token"]):
            await wait_for(lambda: online(a, code) == [True, True], 5, "both racers online")
            status, started = api(
                a.url, "POST", f"/api/rooms/{code}/moves", {"action": "start"}, ana
            )
            assert status == 200, started
            b.stop(signal.SIGKILL)
            await wait_for(
                lambda: ("away", 1) in moves_of(db, code), HEAL_SECONDS, "Bo marked away"
            )
            # Asked while Ana's socket is still open: leaving this block closes it, and then she
            # is away for real (CI once read her goodbye here and failed).
            assert ("away", 0) not in moves_of(db, code)
    finally:
        a.stop()
        b.stop(signal.SIGKILL)
        servers.drop_database(env)


@contextlib.asynccontextmanager
async def bot_socket(server: Daphne, code: str, token: str):
    """A racer's bot socket on `server`, held open (the client answers pings by itself)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with websockets.connect(
        f"{server.ws_url}/ws/r/{code}/", additional_headers=headers, subprotocols=["json"]
    ) as socket:
        yield socket


def moves_of(db: GameDatabase, code: str) -> list[tuple[str, int]]:
    query = (
        "SELECT m.action, m.seat FROM games_move m JOIN games_game g ON g.id = m.game_id"
        " JOIN games_room r ON r.id = g.room_id WHERE r.code = {p} ORDER BY m.id"
    )
    return [tuple(row) for row in db.query(query, code)]
