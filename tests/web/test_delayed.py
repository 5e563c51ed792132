"""A race spectator's delayed socket: texts go out in order, no earlier than the delay, and the
queue stops at its bound (`games.live.delayed`)."""

import asyncio

import pytest

from games.live import delayed
from games.live.delayed import DelayedSender, Full


async def test_texts_go_out_in_order_no_earlier_than_the_delay():
    loop = asyncio.get_running_loop()
    sent: list[tuple[str, float]] = []
    done = asyncio.Event()

    async def write(text: str) -> None:
        sent.append((text, loop.time()))
        if len(sent) == 3:
            done.set()

    sender = DelayedSender(0.2, write)
    handed = {}
    for text in ("snapshot", "move 1", "move 2"):
        handed[text] = loop.time()
        sender.put(text)
    await asyncio.wait_for(done.wait(), timeout=5)
    assert [text for text, _ in sent] == ["snapshot", "move 1", "move 2"]
    assert all(at - handed[text] >= 0.2 for text, at in sent)


async def test_the_queue_stops_at_its_bound_and_stop_drops_what_waits():
    written: list[str] = []

    async def write(text: str) -> None:
        written.append(text)

    sender = DelayedSender(60.0, write)
    shared = "the same text for every spectator"  # queued by reference, not copied
    for _ in range(delayed.LIMIT):
        sender.put(shared)
    with pytest.raises(Full):
        sender.put("one too many")
    assert len(sender.waiting) == delayed.LIMIT
    sender.stop()
    assert not sender.waiting and sender.task is None and written == []


async def test_hurry_sends_what_waits_at_once_in_order_and_slow_delays_again():
    """A racer who stopped watches late until the race is over, then catches up at once."""
    loop = asyncio.get_running_loop()
    sent: list[tuple[str, float]] = []
    arrived = asyncio.Event()

    async def write(text: str) -> None:
        sent.append((text, loop.time()))
        arrived.set()

    sender = DelayedSender(60.0, write)
    sender.put("move 1")
    sender.put("move 2")
    hurried = loop.time()
    sender.hurry()
    sender.put("results")
    while len(sent) < 3:
        arrived.clear()
        await asyncio.wait_for(arrived.wait(), timeout=5)
    assert [text for text, _ in sent] == ["move 1", "move 2", "results"]
    assert all(at - hurried < 5 for _, at in sent)
    assert sender.idle
    sender.slow(0.2)  # behind again, in the next race
    handed = loop.time()
    sender.put("next race")
    arrived.clear()
    await asyncio.wait_for(arrived.wait(), timeout=5)
    assert sent[-1][0] == "next race" and sent[-1][1] - handed >= 0.2
