"""The real PostgreSQL and Redis of this machine (and CI).

CI runs the whole suite with DATABASE_URL and REDIS_URL set; these tests prove that it really did,
and exercise channels-redis directly. Outside CI a missing service skips with its reason.
"""

import asyncio
import os
import socket
import uuid

import pytest
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import connection

from tests.helpers.environment import IN_CI, skip_or_fail

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.django_db
def test_ci_runs_the_suite_on_postgresql_and_channels_redis():
    if not IN_CI:
        pytest.skip("only CI promises DATABASE_URL and REDIS_URL (see .ci/run)")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert "PostgreSQL" in cursor.fetchone()[0]
    assert isinstance(get_channel_layer(), RedisPubSubChannelLayer)  # the production default
    host = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]
    assert host["socket_timeout"] is None  # idle sockets must not die after 5 s


@pytest.fixture(params=[RedisPubSubChannelLayer, RedisChannelLayer])
def redis_layer(request):
    """Both layers `REDIS_CHANNEL_LAYER` chooses from: pub/sub (the default) and core."""
    if not reachable("127.0.0.1", 6379):
        skip_or_fail("Redis is not running on 127.0.0.1:6379")
    return request.param(
        hosts=[{"address": REDIS_URL, "socket_timeout": None}],
        prefix=f"test-{uuid.uuid4().hex[:8]}",
    )


async def test_redis_group_send_reaches_every_member(redis_layer):
    first = await redis_layer.new_channel()
    second = await redis_layer.new_channel()
    await redis_layer.group_add("room-1", first)
    await redis_layer.group_add("room-1", second)
    await redis_layer.group_send("room-1", {"type": "room.html", "html": "<p>hi</p>"})
    for channel in (first, second):
        message = await asyncio.wait_for(redis_layer.receive(channel), 5)
        assert message == {"type": "room.html", "html": "<p>hi</p>"}
    await redis_layer.group_discard("room-1", second)
    await redis_layer.group_send("room-1", {"type": "room.html", "html": "<p>2</p>"})
    assert (await asyncio.wait_for(redis_layer.receive(first), 5))["html"] == "<p>2</p>"
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(redis_layer.receive(second), 0.5)
    await redis_layer.flush()
