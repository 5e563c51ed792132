"""Quick match across a deployment (issue 37): two Daphne processes sharing the database (the
queue) and Redis (the channel layer), as in production. Seekers arrive at both at once; each is
told `matched` exactly once, in a room of two, whichever process paired them, and no seeker is
in two rooms."""

import asyncio
import json
import os
from collections import Counter

import pytest
import websockets

from tests.helpers import servers
from tests.helpers.environment import skip_or_fail

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
SEEKERS = 24


@pytest.fixture(scope="module")
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    if not servers.redis_reachable(REDIS_URL):
        skip_or_fail(f"Redis is not reachable at {REDIS_URL}")
    folder = tmp_path_factory.mktemp("lobby")
    try:
        env = servers.migrated_database_env(folder, "lobby", REDIS_URL=REDIS_URL)
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    with servers.two_daphnes(folder, env, lambda: request.session.testsfailed) as pair:
        yield pair


async def seek(url: str, number: int, told: list[tuple[int, str]]) -> None:
    async with websockets.connect(f"{url}/ws/lobby/", subprotocols=["json"]) as lobby:
        await lobby.send(json.dumps({"action": "seek", "game": "flags", "name": f"P{number}"}))
        while True:
            event = json.loads(await asyncio.wait_for(lobby.recv(), 20))
            if event["type"] == "matched":
                told.append((number, event["room"]))
                break
        try:  # a second `matched` would be counted
            again = json.loads(await asyncio.wait_for(lobby.recv(), 0.5))
            if again["type"] == "matched":
                told.append((number, again["room"]))
        except TimeoutError:
            pass


def test_seekers_at_two_processes_are_each_matched_once(pair):
    urls = [server.url.replace("http://", "ws://") for server in pair]
    told: list[tuple[int, str]] = []

    async def everyone() -> None:
        await asyncio.gather(*(seek(urls[n % 2], n, told) for n in range(SEEKERS)))

    asyncio.run(everyone())
    per_seeker = Counter(number for number, _ in told)
    per_room = Counter(room for _, room in told)
    assert sorted(per_seeker) == list(range(SEEKERS))
    assert set(per_seeker.values()) == {1}
    assert len(per_room) == SEEKERS // 2 and set(per_room.values()) == {2}
