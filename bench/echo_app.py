"""The least a Daphne app can do to fan a message out: for `bench.echo`, which sets it beside ours.

Every websocket is accepted and kept; a text frame from any of them goes to all the others,
either through the ASGI `send` Daphne gives each socket (`ECHO_PATH=asgi`, Channels' way and
autobahn's framing per socket) or framed once and written to each connection as the app does
(`ECHO_PATH=framed`, games/patches/daphne_frames.py). No Django, no channel layer, no database:
what is left is Daphne, autobahn and Twisted.

    ECHO_PATH=framed daphne -b 127.0.0.1 -p 8765 bench.echo_app:application
"""

import os

from games.patches import daphne_frames

FRAMED = os.environ.get("ECHO_PATH", "framed") == "framed"
_sockets: dict[int, tuple[object, object]] = {}


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    key = id(send)
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            _sockets[key] = (send, daphne_frames.connection_of(send))
        elif message["type"] == "websocket.receive":
            text = message.get("text") or ""
            for other, (their_send, connection) in list(_sockets.items()):
                if other == key:
                    continue
                if not (FRAMED and daphne_frames.send(connection, text)):
                    await their_send({"type": "websocket.send", "text": text})
        elif message["type"] == "websocket.disconnect":
            _sockets.pop(key, None)
            return
