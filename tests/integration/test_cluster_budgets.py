"""Per-seat and per-address budgets hold once for the deployment: two Daphne processes sharing
PostgreSQL (or a SQLite file) and Redis, as in production (issue 33, item 7). A seat's moves, chat
lines and an address's joins sent to both processes in turn are refused at the same total as one
process refuses them; before, each process counted its own share and the seat got twice its
budget."""

import asyncio
import json
import os

import pytest
import websockets

from tests.helpers import servers
from tests.helpers.clients import api
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
MOVES_BURST = 12
"""A seat's moves, with almost no pace back (`MOVES_PER_SECOND`): the total is exact however
slowly the machine answers."""
JOINS = 4
CHAT_LINES = 5
"""`games.rooms.chat.PER_SENDER`: a burst of 5 in 10 s (the test sends its lines within that)."""


@pytest.fixture(scope="module")
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Two Daphnes with the shipped chat limits, a small move budget and a small join limit."""
    if not servers.redis_reachable(REDIS_URL):
        skip_or_fail(f"Redis is not reachable at {REDIS_URL}")
    folder = tmp_path_factory.mktemp("budgets")
    try:
        env = servers.migrated_database_env(
            folder,
            "budgets",
            REDIS_URL=REDIS_URL,
            MOVES_BURST=str(MOVES_BURST),
            MOVES_PER_SECOND="0.001",
            JOINS_PER_MINUTE=str(JOINS),
            RATE_WINDOW_SECONDS="3600",  # no new "minute" of joins while the test runs
        )
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    with servers.two_daphnes(folder, env, lambda: request.session.testsfailed) as pair:
        yield pair


def new_room(server: Daphne) -> tuple[str, str]:
    body = {"game": "minesweeper", "preset": "beginner", "name": "Robo"}
    status, created = api(server.url, "POST", "/api/rooms", body)
    assert status == 201, created
    return created["code"], created["player_token"]


def flag(server: Daphne, code: str, token: str, x: int) -> tuple[int, object]:
    """A move that is always legal: flag a cell of the top row (again: unflag it)."""
    body = {"action": "flag", "x": x % 9, "y": 0}
    return api(server.url, "POST", f"/api/rooms/{code}/moves", body, token)


def accepted_until_refused(answers: list[int]) -> int:
    """How many were taken before the first refusal (429), which must be the last answer."""
    assert answers[-1] == 429 and 429 not in answers[:-1], answers
    return len(answers) - 1


def test_a_seats_api_moves_on_two_processes_share_one_budget(pair):
    a, b = pair
    code, token = new_room(a)
    answers: list[int] = []
    while not answers or answers[-1] != 429:
        assert len(answers) <= 3 * MOVES_BURST, answers  # each process's share would be more
        answers.append(flag((a, b)[len(answers) % 2], code, token, len(answers))[0])
    assert accepted_until_refused(answers) == MOVES_BURST
    assert flag(a, code, token, 0)[0] == flag(b, code, token, 0)[0] == 429


async def bot_moves(server: Daphne, code: str, token: str, moves: int) -> list[str]:
    """A bot's socket on `server` sends `moves` flags, one at a time: "ack" or the error text."""
    url = f"{server.ws_url}/ws/r/{code}/?format=json&token={token}"
    replies = []
    async with websockets.connect(url, origin=server.url) as socket_:
        assert json.loads(await socket_.recv())["type"] == "snapshot"
        for n in range(moves):
            await socket_.send(json.dumps({"action": "flag", "x": n % 9, "y": 1, "id": n}))
            while True:
                event = json.loads(await asyncio.wait_for(socket_.recv(), 30))
                if event["type"] in ("ack", "error"):
                    replies.append("ack" if event["type"] == "ack" else event["error"])
                    break
    return replies


async def test_a_seats_sockets_on_two_processes_and_the_api_share_one_budget(pair):
    """Half the budget over a socket on one process, the rest over the API on the other: the
    socket on the second process is then refused too."""
    a, b = pair
    code, token = await asyncio.to_thread(new_room, a)
    half = MOVES_BURST // 2
    assert await bot_moves(a, code, token, half) == ["ack"] * half
    answers = [(await asyncio.to_thread(flag, b, code, token, n))[0] for n in range(half)]
    assert answers == [200] * half
    refused = await bot_moves(b, code, token, 1)
    assert refused == ["Too many moves: slow down."]


def test_a_seats_chat_on_two_processes_shares_one_budget(pair):
    a, b = pair
    code, token = new_room(a)
    answers: list[int] = []
    while not answers or answers[-1] != 429:
        assert len(answers) <= 3 * CHAT_LINES, answers
        server = (a, b)[len(answers) % 2]
        body = {"text": f"line {len(answers)}"}
        answers.append(api(server.url, "POST", f"/api/rooms/{code}/chat", body, token)[0])
    assert accepted_until_refused(answers) == CHAT_LINES


def test_an_addresss_joins_on_two_processes_share_one_limit(pair):
    """Rooms are made with JOINS_PER_MINUTE's count untouched: creating takes the first seat
    without a join. Every client here is 127.0.0.1."""
    a, b = pair
    code, _ = new_room(a)
    answers: list[int] = []
    while not answers or answers[-1] != 429:
        assert len(answers) <= 3 * JOINS, answers
        server = (a, b)[len(answers) % 2]
        body = {"name": f"P{len(answers)}"}
        answers.append(api(server.url, "POST", f"/api/rooms/{code}/join", body)[0])
    assert accepted_until_refused(answers) == JOINS
