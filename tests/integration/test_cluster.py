"""Two real Daphne processes serving one room, as in production (docker-compose.yml).

They share one database (PostgreSQL when DATABASE_URL is set, as in CI, else a SQLite file in WAL
mode) and Redis (REDIS_URL, else 127.0.0.1:6379) under a channel-layer prefix of their own.
Players get their seats the way browsers do (tests/helpers/clients.py), and their sockets
behave like the room page: a board built from fragments, a snapshot after a version gap, and
htmx's reconnect after 1006/1011/1012/1013. The test that stops Redis starts a private
redis-server for it; the shared one is never touched.
"""

import asyncio
import os
import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import websockets
from channels_redis.core import RedisChannelLayer
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.engine import minesweeper as engine
from tests.helpers import servers
from tests.helpers.clients import HttpSession, LiveClient, api, public_board, replay, running
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne, GameDatabase, RedisServer

pytestmark = pytest.mark.integration
ALONE = pytest.mark.serial
"""The load tests (a thousand moves, the version order under 1,600): `make test` runs them alone.
The rest of the module runs beside other tests: a few moves each, and a 15 s idle that sleeps."""

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
CLIENTS = 50
MOVES_EACH = 20
"""1,000 moves: each socket fires 20 at once, inside its burst of 40 (games/ratelimit.py)."""
ORDER_PLAYERS, ORDER_ROUNDS, ORDER_BURST = 16, 5, 20
"""1,600 moves in bursts of 20 per socket (within its 40), with 4 spectators: about 40 s here."""
ADDRESS_MOVES_PER_SECOND = 50.0
"""The shipped per-address move rate (config/settings.py): the test servers raise the burst
only, so a run that plays at this pace also fits an unraised server."""
ORDER_PACE = 0.8 * ADDRESS_MOVES_PER_SECOND * 2 / ORDER_PLAYERS
"""Moves a second per seat: the players share one address (loopback), half on each process,
and each process allows an address ADDRESS_MOVES_PER_SECOND (with room to spare)."""
IDLE_SECONDS = 15
"""Longer than it takes redis-py's 5 s socket timeout to close an idle socket (5-12 s; the doomed
layer beside it shows the failure within it), which is what the idle test guards against."""
CONVERGE_SECONDS = 10
DRAIN_SECONDS = 90
"""A thousand moves in one room of 50 take 20-25 s to commit on two processes here, and their
50,000 fragments up to 20 s more to reach every socket: generous, as CI machines get busy."""


@dataclass
class Cluster:
    env: dict[str, str]
    a: Daphne
    b: Daphne
    db: GameDatabase
    folder: Path


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    if not servers.redis_reachable(REDIS_URL):
        skip_or_fail(f"Redis is not reachable at {REDIS_URL}")
    folder = tmp_path_factory.mktemp("cluster")
    try:
        env = servers.migrated_database_env(folder, "cluster", REDIS_URL=REDIS_URL)
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    with servers.two_daphnes(folder, env, lambda: request.session.testsfailed, 6000) as (a, b):
        yield Cluster(env, a, b, GameDatabase(env), folder)


async def seat(server: Daphne, code: str, nickname: str) -> tuple[str, int]:
    """(cookie header, seat) of a browser that joined the room through the invite link."""
    session = HttpSession(server.url)
    number = await asyncio.to_thread(session.join, code, nickname)
    return session.cookie_header, number


async def new_room(server: Daphne, nickname: str, preset: str = "beginner") -> tuple[str, str]:
    """(code, cookie header) of a room created through the home page form."""
    session = HttpSession(server.url)
    code = await asyncio.to_thread(session.create_room, nickname, preset)
    return code, session.cookie_header


def uncap(cluster: Cluster, code: str) -> None:
    """The host's player cap at its highest (a new room takes 8): the test seats more."""
    cluster.db.execute("UPDATE games_room SET player_cap = 50 WHERE code = {p}", code)


def assert_log_replays(db: GameDatabase, code: str) -> dict:
    """The move log numbers 1..N without a hole and rebuilds exactly the stored state."""
    game = db.game(code)
    moves = db.moves(game["id"])
    assert [move[0] for move in moves] == list(range(1, game["version"] + 1))
    assert replay(game["state"], game["seed"], moves) == game["state"]
    return game


# --- a: across processes ------------------------------------------------------------------------


async def test_players_on_different_processes_see_each_others_moves(cluster):
    code, cookie = await new_room(cluster.a, "Ana")
    bo_cookie, _ = await seat(cluster.b, code, "Bo")
    ana = LiveClient("ana@A", cluster.a.ws_url, code, cookie)
    bo = LiveClient("bo@B", cluster.b.ws_url, code, bo_cookie)
    async with running(ana, bo):
        await ana.send(action="reveal", x=4, y=4)
        await bo.wait_for_version(1)
        assert bo.board[(4, 4)][0] == "revealed"

        hidden = next(cell for cell, (state, _) in sorted(bo.board.items()) if state == "hidden")
        await bo.send(action="flag", x=hidden[0], y=hidden[1])
        await ana.wait_for_version(2)
        await bo.wait_for_version(2)
        assert ana.board[hidden] == ("flagged", None)
        assert ana.board == bo.board == public_board(cluster.db.state(code))
    assert ana.errors == bo.errors == []
    assert_log_replays(cluster.db, code)


# --- b: a thousand moves at once ------------------------------------------------------------


def plan_moves(state: dict, rng: random.Random, total: int) -> list[tuple[str, int, int]]:
    """`total` moves that are all valid whatever order they land in: flag toggles on mines
    (never revealed, so a toggle always changes something and never ends the game) and reveals of
    safe cells chosen so that even every one of them plus a chord around each (a chord only ever
    opens safe cells while flags sit on mines alone) leaves a safe cell covered: nobody wins."""
    game = engine.from_dict(state)
    width = game.config.width
    mines = sorted(game.field.mines)
    covered = [c for c in range(game.grid.size) if c not in game.field.mines]
    covered = [c for c in covered if c not in game.revealed]
    rng.shuffle(covered)
    reveals: list[int] = []
    worst = game
    for cell in covered:
        trial = worst
        for target in (cell, *game.grid.neighbours(cell)):
            if target not in game.field.mines:
                trial, _ = engine.apply_move(
                    trial, engine.Move(engine.Action.REVEAL, *xy(target, width))
                )
        if trial.status is engine.Status.PLAYING:
            worst = trial
            reveals.append(cell)
        if len(reveals) == total // 25:
            break
    moves = [("reveal", *xy(cell, width)) for cell in reveals]
    moves += [("flag", *xy(rng.choice(mines), width)) for _ in range(total - len(moves))]
    rng.shuffle(moves)
    return moves


def xy(cell: int, width: int) -> tuple[int, int]:
    return cell % width, cell // width


@ALONE
async def test_a_thousand_concurrent_moves_on_two_processes_leave_one_consistent_game(cluster):
    servers_ = (cluster.a, cluster.b)
    code, cookie = await new_room(cluster.a, "Hana", preset="expert")
    uncap(cluster, code)
    guests = await asyncio.gather(
        *(seat(servers_[i % 2], code, f"P{i}") for i in range(1, CLIENTS))
    )
    cookies = [cookie] + [guest_cookie for guest_cookie, _ in guests]
    clients = [
        LiveClient(f"p{i}@{'AB'[i % 2]}", servers_[i % 2].ws_url, code, cookies[i])
        for i in range(CLIENTS)
    ]
    rng = random.Random(20_241_122)
    async with running(*clients):
        await clients[0].send(action="reveal", x=15, y=8)
        await asyncio.gather(*(client.wait_for_version(1) for client in clients))
        moves = plan_moves(cluster.db.state(code), rng, CLIENTS * MOVES_EACH)

        async def fire(client: LiveClient, script: list[tuple[str, int, int]]) -> None:
            for action, x, y in script:
                assert await client.send(action=action, x=x, y=y), f"{client.name} closed"

        started = time.monotonic()
        await asyncio.gather(*(fire(c, moves[i::CLIENTS]) for i, c in enumerate(clients)))
        await asyncio.gather(*(client.barrier(timeout=DRAIN_SECONDS) for client in clients))
        committed = time.monotonic() - started
        final = cluster.db.game(code)
        await asyncio.gather(
            *(c.wait_for_version(final["version"], DRAIN_SECONDS) for c in clients)
        )
        delivered = time.monotonic() - started
        stored = public_board(final["state"])
        for client in clients:
            assert client.board == stored, f"{client.name}'s board differs from the database"
            assert client.errors == [], client.name
            assert client.closes == [], client.name
    flags = sum(1 for action, _, _ in moves if action == "flag")
    assert final["status"] == "playing"
    assert final["version"] >= 1 + flags  # every toggle changed something; reveals may not
    assert_log_replays(cluster.db, code)
    syncs = sum(client.syncs for client in clients)
    print(
        f"\n{len(moves)} moves committed in {committed:.1f}s, on every board after"
        f" {delivered:.1f}s; {syncs} snapshots asked for after a gap"
    )


@ALONE
async def test_every_socket_hears_every_version_once_and_in_order_across_processes(cluster):
    """Players and spectators on both processes, moves from both at once: a move committed on
    one process can overtake the other's earlier one on its way through Redis; the relay's
    reorder buffer (games/live/reorder.py) hands them on in order, so no socket sees a gap."""
    everyone, final, took = await order_run(cluster, ORDER_ROUNDS)
    for client in everyone:
        first = client.heard[0][1]
        assert client.heard == [(1, v) for v in range(first, final + 1)], client.name
        assert client.syncs == 0 and client.closes == [], client.name
    print(f"\n{final} versions to {len(everyone)} sockets on two processes in {took:.1f}s")


async def order_run(cluster: Cluster, rounds: int) -> tuple[list[LiveClient], int, float]:
    """ORDER_PLAYERS players and 4 spectators spread over both processes; each player sends
    `rounds` bursts of ORDER_BURST moves. The sockets (each with what it heard), the final
    version and the seconds taken (also `python -m bench.version_order`)."""
    servers_ = (cluster.a, cluster.b)
    code, cookie = await new_room(cluster.a, "Hana", preset="expert")
    uncap(cluster, code)
    guests = await asyncio.gather(
        *(seat(servers_[i % 2], code, f"P{i}") for i in range(1, ORDER_PLAYERS))
    )
    cookies = [cookie] + [guest_cookie for guest_cookie, _ in guests]
    players = [
        LiveClient(f"p{i}@{'AB'[i % 2]}", servers_[i % 2].ws_url, code, cookies[i])
        for i in range(ORDER_PLAYERS)
    ]
    watchers = [LiveClient(f"w{i}@{'AB'[i % 2]}", servers_[i % 2].ws_url, code) for i in range(4)]
    rng = random.Random(26_4)
    async with running(*players, *watchers):
        await players[0].send(action="reveal", x=15, y=8)
        await asyncio.gather(*(client.wait_for_version(1) for client in players + watchers))
        total = ORDER_PLAYERS * rounds * ORDER_BURST
        moves = plan_moves(cluster.db.state(code), rng, total)

        period = (ORDER_BURST + 1) / ORDER_PACE  # a burst and its barrier, each a move

        async def fire(client: LiveClient, script: list[tuple[str, int, int]], at: float) -> None:
            """Bursts within the flood limit, each committed before the next (`barrier`), and
            no faster than the move budgets refill (issue 26 counts moves per seat and
            address): each seat's bursts start `period` apart, the seats spread over it."""
            for n, start in enumerate(range(0, len(script), ORDER_BURST)):
                await asyncio.sleep(max(0.0, at + n * period - time.monotonic()))
                for action, x, y in script[start : start + ORDER_BURST]:
                    assert await client.send(action=action, x=x, y=y), f"{client.name} closed"
                await client.barrier(timeout=DRAIN_SECONDS)

        started = time.monotonic()
        offsets = [started + i * period / ORDER_PLAYERS for i in range(ORDER_PLAYERS)]
        await asyncio.gather(
            *(fire(c, moves[i::ORDER_PLAYERS], offsets[i]) for i, c in enumerate(players))
        )
        final = cluster.db.game(code)["version"]
        everyone = players + watchers
        await asyncio.gather(*(c.wait_for_version(final, DRAIN_SECONDS) for c in everyone))
        took = time.monotonic() - started
    return everyone, final, took


# --- c: a process restarts mid-game -----------------------------------------------------------


async def test_a_restarted_process_sends_1012_loses_nothing_and_its_clients_come_back(cluster):
    code, cookie = await new_room(cluster.a, "Ana")
    guests = [await seat(cluster.b if i % 2 else cluster.a, code, f"P{i}") for i in range(1, 8)]
    cookies = [cookie] + [guest_cookie for guest_cookie, _ in guests]
    on_a = [LiveClient(f"p{i}@A", cluster.a.ws_url, code, cookies[i]) for i in range(0, 8, 2)]
    on_b = [LiveClient(f"p{i}@B", cluster.b.ws_url, code, cookies[i]) for i in range(1, 8, 2)]
    moving = True

    async def play(client: LiveClient, rng: random.Random) -> None:
        """A flag toggle (always valid on a board nobody reveals) four times a second while
        connected: eight busy players."""
        while moving:
            if client.connected:
                await client.send(action="flag", x=rng.randrange(9), y=rng.randrange(9))
            await asyncio.sleep(0.25)

    async with running(*on_a, *on_b):
        players = [
            asyncio.create_task(play(c, random.Random(n))) for n, c in enumerate(on_a + on_b)
        ]
        await wait_for_moves(cluster.db, code, 20)
        status = await asyncio.to_thread(cluster.b.stop, signal.SIGTERM)
        assert status == 0, f"daphne exited with {status}:\n{cluster.b.log_tail()}"
        for client in on_b:
            await client.wait_until(lambda c=client: c.closes, what="a close")
            assert client.closes[0] == 1012, client.closes
        assert all(client.connected for client in on_a)
        await wait_for_moves(cluster.db, code, cluster.db.game(code)["version"] + 10)  # without B

        cluster.b.start()
        back = time.monotonic()
        for client in on_b:
            await client.wait_connected(snapshots=2, timeout=CONVERGE_SECONDS)
        moving = False
        await asyncio.gather(*players)
        await asyncio.gather(*(client.barrier() for client in on_a + on_b))
        final = cluster.db.game(code)
        await asyncio.gather(
            *(c.wait_for_version(final["version"], timeout=CONVERGE_SECONDS) for c in on_a + on_b)
        )
        converged = time.monotonic() - back
        stored = public_board(final["state"])
        for client in on_a + on_b:
            assert client.board == stored, client.name
            assert client.errors == [], client.name
        # The stopped process took its sockets out of the presence counts before it exited.
        assert connections(cluster.db, code) == [1] * 8
    assert converged < CONVERGE_SECONDS
    assert_log_replays(cluster.db, code)


def connections(db: GameDatabase, code: str) -> list[int]:
    """Open sockets per seat, as the roster counts them."""
    query = (
        "SELECT p.connections FROM games_player p JOIN games_room r ON r.id = p.room_id"
        " WHERE r.code = {p} ORDER BY p.number"
    )
    return [row[0] for row in db.query(query, code)]


async def wait_for_moves(db: GameDatabase, code: str, version: int) -> None:
    deadline = time.monotonic() + CONVERGE_SECONDS
    while db.game(code)["version"] < version:
        assert time.monotonic() < deadline, f"the game did not reach version {version}"
        await asyncio.sleep(0.05)  # polling another process's database, bounded by the deadline


# --- d: Redis goes down ------------------------------------------------------------------------


async def test_without_redis_pages_and_moves_still_work_and_live_updates_come_back(
    cluster, tmp_path
):
    try:
        redis = RedisServer(tmp_path / "redis.log").start()
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    env = {**cluster.env, "REDIS_URL": redis.url}
    env["CHANNEL_LAYER_PREFIX"] = servers.unique_name("down")
    with redis, Daphne(env, tmp_path / "a.log") as a, Daphne(env, tmp_path / "b.log") as b:
        browser = HttpSession(a.url)
        code = await asyncio.to_thread(browser.create_room, "Ana")
        status, bot = await asyncio.to_thread(
            api, b.url, "POST", f"/api/rooms/{code}/join", {"name": "Bot"}
        )
        assert status == 200, bot
        ana = LiveClient("ana@A", a.ws_url, code, browser.cookie_header)
        watcher = LiveClient("watcher@B", b.ws_url, code)
        async with running(ana, watcher):
            await ana.send(action="reveal", x=4, y=4)
            await watcher.wait_for_version(1)
            covered = [
                cell for cell, (state, _) in sorted(watcher.board.items()) if state == "hidden"
            ]

            redis.stop(signal.SIGKILL)
            for client in (ana, watcher):
                await client.wait_until(lambda c=client: c.closes, what="a close")
                assert client.closes[0] == 1013  # "try again later": the page says so
            for server in (a, b):
                assert HttpSession(server.url).request("/")[0] == 200
                assert HttpSession(server.url).request("/healthz")[0] == 200
            assert (await asyncio.to_thread(browser.request, f"/r/{code}/"))[0] == 200
            started = time.monotonic()
            with pytest.raises(websockets.InvalidStatus):
                await websockets.connect(f"{b.ws_url}/ws/r/{code}/?watch=1", origin=b.url)
            assert time.monotonic() - started < 3  # refused at once, no hang

            status, moved = await asyncio.to_thread(
                api,
                b.url,
                "POST",
                f"/api/rooms/{code}/moves",
                {"action": "flag", "x": covered[0][0], "y": covered[0][1]},
                bot["player_token"],
            )
            assert (status, moved["version"]) == (200, 2)  # committed, though nobody was told
            assert cluster.db.game(code)["version"] == 2
            status, room = await asyncio.to_thread(
                api, a.url, "POST", "/api/rooms", {"preset": "beginner"}
            )
            assert status == 201, room  # the per-address cap is skipped, not the room
            assert not ana.connected and not watcher.connected

            redis.start()
            back = time.monotonic()
            for client in (ana, watcher):
                await client.wait_for_version(2, timeout=CONVERGE_SECONDS)
            assert time.monotonic() - back < CONVERGE_SECONDS
            await ana.send(action="flag", x=covered[1][0], y=covered[1][1])  # live again
            await watcher.wait_for_version(3)
            await ana.wait_for_version(3)
            stored = public_board(cluster.db.state(code))
            assert ana.board == watcher.board == stored
            assert ana.errors == watcher.errors == []
    assert connections(cluster.db, code) == [0, 0]
    assert_log_replays(cluster.db, code)


# --- e: idle sockets ----------------------------------------------------------------------------


async def socket_timeout_kills_an_idle_receive(seconds: float) -> float:
    """The failure mode `socket_timeout: None` avoids: with redis-py's 5 s timeout, a layer's
    blocking read on an idle channel fails (a consumer would die with 1011)."""
    layer = RedisChannelLayer(
        hosts=[{"address": REDIS_URL, "socket_timeout": 5}], prefix=servers.unique_name("idle")
    )
    channel = await layer.new_channel()
    started = time.monotonic()
    try:
        with pytest.raises(RedisTimeoutError):
            await asyncio.wait_for(layer.receive(channel), seconds)
        return time.monotonic() - started
    finally:
        await layer.close_pools()


async def test_an_idle_socket_survives_and_receives_the_next_move(cluster):
    status, room = await asyncio.to_thread(
        api, cluster.b.url, "POST", "/api/rooms", {"preset": "beginner"}
    )
    assert status == 201, room
    watcher = LiveClient("idle@A", cluster.a.ws_url, room["code"])
    async with running(watcher):
        doomed = asyncio.create_task(socket_timeout_kills_an_idle_receive(IDLE_SECONDS))
        await asyncio.sleep(IDLE_SECONDS)  # the idle period itself
        assert watcher.connected and watcher.closes == []
        status, _ = await asyncio.to_thread(
            api,
            cluster.b.url,
            "POST",
            f"/api/rooms/{room['code']}/moves",
            {"action": "reveal", "x": 4, "y": 4},
            room["player_token"],
        )
        assert status == 200
        await watcher.wait_for_version(1, timeout=5)
        assert watcher.closes == []
        assert await doomed < 15
