"""Fixtures most room tests share: a beginner Minesweeper room with two players seated. A module
that overrides `room` (a Flags or tic-tac-toe room) gets `ana` and `bo` seated in its own room."""

import pytest

from games import log_limit
from games.live import rosters
from games.protocol import flood
from games.rooms import autoplay, chat, hints, joining

from .helpers import make_room


@pytest.fixture(autouse=True)
def fresh_hint_limits():
    """Hint and move budgets and the hint cache are per process: each test starts with its own, as a
    database flushed between tests can give the same game id and version to another board."""
    hints.reset()
    flood.reset()
    chat.reset()
    log_limit.reset()
    yield
    hints.reset()


@pytest.fixture(autouse=True)
async def settled_database_work():
    """What a test's sockets left under way (presence news, computers' drivers) is done or
    stopped before its database is emptied: a write that late meets the flush and deadlocks."""
    yield
    await rosters.settle()
    await autoplay.stop()
    await rosters.settle()


@pytest.fixture
def room():
    return make_room()


@pytest.fixture
def ana(room):
    return joining.join_room(room, "Ana")


@pytest.fixture
def bo(room):
    return joining.join_room(room, "Bo")
