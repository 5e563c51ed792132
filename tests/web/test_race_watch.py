"""The watch link of a race: a spectator of a finished race waits for nothing (there is nobody
left to coach), and a racer's own session on the watch link sees what the racer may see."""

import re
import time

import pytest
from asgiref.sync import sync_to_async

from games.kinds.race import rules
from games.rooms import joining

from .helpers import connect, receive_until, send
from .test_race import _go

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 3
RIVAL_CELL = re.compile(r'id="cell-\d+-\d+-\d+"')


async def _racing():
    """Ana and Bo racing, past Go, in a room whose spectators watch DELAY seconds behind."""
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=DELAY)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    a, b = await connect(room, ana), await connect(room, bo)
    await send(a, action="start")
    await receive_until(b, 'data-phase="countdown"')
    await sync_to_async(_go)(room)
    await receive_until(b, 'data-phase="racing"')
    return room, bo, (a, b)


async def test_a_spectator_of_a_finished_race_gets_the_results_at_once():
    room, _, (a, b) = await _racing()
    for socket in (a, b):
        await send(socket, action="give_up")
    await receive_until(a, r'id="results"[^>]*>\s*<h2')
    asked = time.monotonic()
    watcher = await connect(room, watch=True)  # returns once the snapshot is in
    assert time.monotonic() - asked < DELAY
    assert re.search(r'id="results"[^>]*>\s*<h2', watcher.snapshot)
    for socket in (a, b, watcher):
        await socket.disconnect()


async def test_a_racers_session_on_the_watch_link_sees_the_racers_view_not_the_spectators():
    room, bo, (a, b) = await _racing()
    asked = time.monotonic()
    watching = await connect(room, bo, watch=True)
    assert time.monotonic() - asked < DELAY  # their own view: nothing to hold back from them
    snapshot = watching.snapshot
    assert 'class="progress-card"' in snapshot and not RIVAL_CELL.search(snapshot)
    for socket in (a, b, watching):
        await socket.disconnect()


async def test_a_lobby_with_live_spectators_says_a_rivals_friends_could_coach():
    settings = rules.validate_settings(9, 9, 10, True, spectator_delay=0)
    room = await sync_to_async(joining.create_room)("race", settings)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    a = await connect(room, ana)
    assert "a rival's friends watching could coach" in a.snapshot.replace("&#x27;", "'")
    await a.disconnect()
