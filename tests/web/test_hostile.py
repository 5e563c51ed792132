"""Hostile clients: floods, room spam, fuzzed frames, and settings fit for production."""

import json
import os
import re
import subprocess
import sys
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.test import RequestFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import log_limit, metrics
from games.limits import Limit, TokenBucket
from games.protocol.flood import FLOOD_REASON, SPECTATOR_FLOOD_REASON, SPECTATOR_MESSAGES
from games.rooms import joining
from games.store.models import Game, Move, Room
from games.web.room_limit import room_reservation

from .helpers import before_echo, connect, make_room, retry_after, send

ROOMS_PER_MINUTE = 10


def test_token_bucket_lets_bursts_through_and_stops_floods():
    bucket = TokenBucket.full(Limit.rate("test", 5, 2), now=0)
    assert [bucket.take(0).remaining for _ in range(5)] == [4, 3, 2, 1, 0]
    refused = bucket.take(0)
    assert not refused.allowed and refused.retry_after == 0.5
    assert bucket.take(0.5).allowed  # one token back after half a second at 2/s
    assert not bucket.take(0.5).allowed


@pytest.mark.django_db(transaction=True)
async def test_a_flood_closes_the_socket_with_1008():
    room = await sync_to_async(make_room)()
    player = await sync_to_async(joining.join_room)(room, "Flood")
    socket = await connect(room, player)
    for _ in range(200):
        await send(socket, action="sync")
    closed = None
    while closed is None:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            closed = output
    assert closed["code"] == 1008
    assert closed["reason"] == FLOOD_REASON == "Too many messages: a burst of 40, then 20 a second."


@pytest.mark.django_db(transaction=True)
async def test_a_spectator_has_a_smaller_budget_than_a_player():
    """Sockets that only watch and keep asking (issue 26's memory attack) are closed sooner; the
    same messages from a player's socket are within its budget."""
    room = await sync_to_async(make_room)()
    player = await sync_to_async(joining.join_room)(room, "Ana")
    watching, playing = await connect(room, watch=True), await connect(room, player)
    for _ in range(int(SPECTATOR_MESSAGES.count) + 2):
        await send(watching, action="sync")
        await send(playing, action="sync")
    closed = None
    while closed is None:
        output = await watching.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            closed = output
    assert (closed["code"], closed["reason"]) == (1008, SPECTATOR_FLOOD_REASON)
    assert SPECTATOR_FLOOD_REASON == "Too many messages: a burst of 10, then 2 a second."
    await before_echo(playing)  # still open, answering
    await playing.disconnect()


async def flood_until_closed(socket) -> int:
    """Send syncs past the flood limit; the close code the socket gets."""
    for _ in range(200):
        await send(socket, action="sync")
    while True:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output["code"]


@pytest.mark.django_db(transaction=True)
async def test_flooding_sockets_log_one_line_and_are_all_counted(caplog):
    """An attacker's many sockets cut off in a row: one line per interval, not one each."""
    log_limit.reset()
    room = await sync_to_async(make_room)()
    counted = metrics.WARNINGS.labels("flood")
    before = counted._value.get()
    sockets = [await connect(room, watch=True) for _ in range(3)]
    with caplog.at_level("WARNING"):
        assert [await flood_until_closed(socket) for socket in sockets] == [1008] * 3
    lines = [r for r in caplog.records if "flooding socket" in r.getMessage()]
    assert len(lines) == 1
    assert counted._value.get() - before == 3


@pytest.mark.django_db
def test_room_creation_is_capped_per_address_and_minute(client, settings):
    settings.ROOMS_PER_MINUTE = ROOMS_PER_MINUTE
    # A counter of its own: under CI the counters live in Redis and outlast a single run.
    client.defaults["REMOTE_ADDR"] = f"test-{uuid.uuid4()}"
    data = {"nickname": "Spam", "preset": "beginner"}
    codes = [client.post("/rooms/", data).status_code for _ in range(ROOMS_PER_MINUTE)]
    assert codes == [302] * ROOMS_PER_MINUTE
    refused = client.post("/rooms/", data)
    assert refused.status_code == 429 and "Slow down" in refused.content.decode()
    api = client.post("/api/rooms", {"preset": "beginner"}, content_type="application/json")
    assert api.status_code == 429 and "wait a minute" in api.json()["error"]
    for answer in refused, api:  # both doors say when the minute turns
        retry_after(answer, f'"rooms";q={ROOMS_PER_MINUTE}', window=60)
    assert Room.objects.count() == ROOMS_PER_MINUTE


@pytest.mark.django_db
def test_only_rooms_made_count_toward_the_cap_and_a_refusal_keeps_the_form(client, settings):
    settings.ROOMS_PER_MINUTE = 2
    client.defaults["REMOTE_ADDR"] = f"test-{uuid.uuid4()}"
    typo = {"nickname": "Cleo", "preset": "custom", "width": "9.5", "height": "9", "mines": "10"}
    for _ in range(3):
        assert client.post("/rooms/", typo).status_code == 400
    too_big = {"preset": "custom", "width": 99, "height": 9, "mines": 10}
    assert client.post("/api/rooms", too_big, content_type="application/json").status_code == 400
    assert client.post("/rooms/", {**typo, "width": "9"}).status_code == 302
    made = client.post("/api/rooms", {"preset": "beginner"}, content_type="application/json")
    assert made.status_code == 201
    refused = client.post("/rooms/", {**typo, "width": "12"})
    assert refused.status_code == 429
    html = refused.content.decode()
    alert = re.search(r'<div class="form-error" role="alert"[^>]*>([^<]*)</div>', html)
    assert alert and alert[1].startswith("Slow down")
    assert 'value="Cleo"' in html and 'name="width" min="2" max="50" value="12"' in html
    assert Room.objects.count() == 2


def test_a_reservation_not_kept_is_given_back(settings):
    settings.ROOMS_PER_MINUTE = 1
    request = RequestFactory().post("/rooms/", REMOTE_ADDR=f"test-{uuid.uuid4()}")
    with room_reservation(request, 0.0) as rejected:
        assert rejected.decision.allowed  # a form with errors: never kept
    with pytest.raises(RuntimeError), room_reservation(request, 0.0):
        raise RuntimeError("the database is down")
    with room_reservation(request, 0.0) as made:
        made.keep()
    for _ in range(3):  # refusals count for nothing either
        with room_reservation(request, 0.0) as refused:
            assert not refused.decision.allowed and refused.decision.retry_after == 60
    with room_reservation(request, 59.5) as refused:
        assert not refused.decision.allowed and refused.decision.retry_after == 0.5
    with room_reservation(request, 60.0) as next_minute:
        assert next_minute.decision.allowed


def test_a_longer_window_counts_past_the_clock_minute(settings):
    """RATE_WINDOW_SECONDS stretches the "minute" (tests do, rather than wait for a fresh one)."""
    settings.ROOMS_PER_MINUTE = 1
    settings.RATE_WINDOW_SECONDS = 3600
    request = RequestFactory().post("/rooms/", REMOTE_ADDR=f"test-{uuid.uuid4()}")
    with room_reservation(request, 0.0) as made:
        assert made.decision.allowed
        made.keep()
    with room_reservation(request, 61.0) as refused:
        assert not refused.decision.allowed
        assert refused.decision.retry_after == 3600.0 - 61.0
    with room_reservation(request, 3600.0) as next_window:
        assert next_window.decision.allowed


frames = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
    st.dictionaries(
        st.sampled_from(["action", "x", "y", "cell", "game", "HEADERS", "extra"]),
        st.one_of(
            st.sampled_from(["reveal", "flag", "chord", "mark", "new_game", "sync", "hover", "?"]),
            st.integers(min_value=-(2**70), max_value=2**70),
            st.floats(allow_nan=True),
            st.text(max_size=20),
            st.none(),
            st.booleans(),
            st.lists(st.integers(), max_size=3),
        ),
        max_size=5,
    ).map(json.dumps),
)


@pytest.mark.django_db(transaction=True)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(frames, min_size=1, max_size=8))
async def test_fuzzed_frames_from_a_spectator_never_change_the_game_or_break_the_socket(batch):
    room = await sync_to_async(make_room)()
    spectator = await connect(room, watch=True)
    for frame in batch:
        await spectator.send_to(text_data=frame or " ")  # the test client refuses an empty frame
    await before_echo(spectator)  # still connected and answering
    game = await sync_to_async(Game.objects.get)(room=room)
    assert (game.version, game.number) == (0, 1)
    assert await sync_to_async(Move.objects.count)() == 0
    await spectator.disconnect()


def test_production_settings_pass_the_deploy_check():
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "a-long-random-production-secret-for-the-deploy-check-0123456789",
        "ALLOWED_HOSTS": "mines.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_with_the_development_key():
    env = {**os.environ, "DEBUG": "false"}
    env.pop("SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode != 0 and "Set SECRET_KEY" in result.stderr
