"""The embedded channel layer: Channels' in-memory layer with a broadcast linear in the room."""

import types

import pytest
from channels import layers as channels_layers

from games import layers
from games.layers import LocalChannelLayer


@pytest.fixture
def clock(monkeypatch):
    """Wall time for message expiry (Channels) and monotonic time for the cleaning pace (ours)."""
    now = {"wall": 1_000.0, "monotonic": 50.0}
    monkeypatch.setattr(channels_layers, "time", types.SimpleNamespace(time=lambda: now["wall"]))
    monkeypatch.setattr(layers, "time", types.SimpleNamespace(monotonic=lambda: now["monotonic"]))
    return now


async def test_a_group_send_reaches_every_member_in_order_and_skips_a_full_one(clock):
    layer = LocalChannelLayer(capacity=2)
    members = [await layer.new_channel() for _ in range(3)]
    for channel in members:
        await layer.group_add("room-1", channel)
    await layer.send(members[0], {"type": "room.html", "html": "already queued"})
    for html in ("one", "two"):
        await layer.group_send("room-1", {"type": "room.html", "html": html})
    assert [(await layer.receive(members[0]))["html"] for _ in range(2)] == [
        "already queued",
        "one",
    ]
    for channel in members[1:]:
        assert [(await layer.receive(channel))["html"] for _ in range(2)] == ["one", "two"]
    assert layer.channels == {}  # every queue emptied (the full one lost "two", as in Channels)


async def test_cleaning_runs_at_most_once_a_second_and_messages_still_expire(clock):
    layer = LocalChannelLayer(expiry=60)
    stale, fresh = await layer.new_channel(), await layer.new_channel()
    for channel in (stale, fresh):
        await layer.group_add("room-1", channel)
    await layer.group_send("room-1", {"type": "room.html", "html": "first"})  # cleans: nothing old
    assert (await layer.receive(fresh))["html"] == "first"

    clock["wall"] += 61  # `stale` never read its message: it has expired
    clock["monotonic"] += 0.5  # but the last cleaning was half a second ago
    await layer.group_send("room-1", {"type": "room.html", "html": "second"})
    assert set(layer.groups["room-1"]) == {stale, fresh}  # not cleaned yet

    clock["monotonic"] += 1
    await layer.group_send("room-1", {"type": "room.html", "html": "third"})
    assert set(layer.groups["room-1"]) == {fresh}  # cleaned: the expired channel left the group
    assert [(await layer.receive(fresh))["html"] for _ in range(2)] == ["second", "third"]
