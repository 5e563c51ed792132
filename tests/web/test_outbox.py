"""`outbox.send` from a server's database thread after the server's event loop has stopped."""

import asyncio
import threading

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from games.broadcast import outbox

from .helpers import TIMEOUT

ROOM_ID = 987_654


class Listener(threading.Thread):
    """A member of the room's group on an event loop of its own, as another server process
    would be: once told the message was sent, it keeps the first one it hears. (It does not
    wait on the layer before that: the in-memory layer wakes waiters of its own loop only.)"""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.ready, self.sent = threading.Event(), threading.Event()
        self.heard: dict | None = None

    def run(self) -> None:
        asyncio.run(self.listen())

    async def listen(self) -> None:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(outbox.group_name(ROOM_ID), channel)
        self.ready.set()
        try:
            await asyncio.to_thread(self.sent.wait, TIMEOUT)
            self.heard = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
        finally:
            await layer.group_discard(outbox.group_name(ROOM_ID), channel)


def test_a_send_after_the_servers_loop_stopped_is_delivered_and_returns():
    """A roster or a move can finish on the database thread after Daphne stopped its loop.
    asgiref's `async_to_sync` handed such a send to the stopped loop and waited for ever: the
    process never exited (a browser test's server, killed after 10 s)."""
    listener = Listener()
    listener.start()
    assert listener.ready.wait(TIMEOUT)
    loop = asyncio.new_event_loop()
    loop_stopped, returned = threading.Event(), threading.Event()

    def late_news() -> None:
        assert loop_stopped.wait(TIMEOUT)
        outbox.send(ROOM_ID, "<p>late</p>")
        returned.set()

    pending = loop.create_task(sync_to_async(late_news, thread_sensitive=False)())
    loop.call_soon(loop.stop)
    try:
        loop.run_forever()  # one turn: the call is on its thread, and the loop stops
        loop_stopped.set()
        assert returned.wait(TIMEOUT), "send waited for the stopped loop"
        listener.sent.set()
        listener.join(TIMEOUT)
        assert listener.heard == outbox.message_of("<p>late</p>")
    finally:
        # Whatever the send handed to this loop runs now, so no thread is left waiting.
        loop_stopped.set()
        loop.run_until_complete(asyncio.wait_for(pending, TIMEOUT))
        loop.close()
