"""Fixtures most room tests share: a beginner Minesweeper room with two players seated."""

import pytest

from games import services

from .helpers import make_room


@pytest.fixture
def room():
    return make_room()


@pytest.fixture
def ana(room):
    return services.join_room(room, "Ana")


@pytest.fixture
def bo(room):
    return services.join_room(room, "Bo")
