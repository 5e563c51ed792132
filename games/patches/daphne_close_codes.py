"""The close codes RFC 6455 gives servers, let through Daphne's websocket: the one patch of Daphne.

A consumer's `close(code=...)` reaches Daphne's `WebSocketProtocol.serverClose`, which calls
autobahn's public `sendClose`; that refuses every code but 1000 and 3000-4999 (it checks what an
application may send, not what a server may). The RFC and the IANA registry give servers 1001,
1008, 1011, 1012 and 1013, and the page needs them: htmx reconnects by itself only after 1006,
1011, 1012 and 1013, and 1008 must make it stop. `install` sends exactly those codes with
autobahn's `sendCloseFrame`, the frame writer behind `sendClose`, and leaves every other code to
Daphne as before.

The patch also gives every close the server starts `CLOSE_HANDSHAKE_SECONDS` for the peer's
reply, where autobahn gives one second and then drops the connection with a reset: a busy
browser that has not read the close frame by then loses it with the reset and reports 1006
(abnormal), so a page closed with 1008 reconnected instead of stopping (seen in CI under load;
`closeHandshakeTimeout` is autobahn's documented protocol option, read from the protocol when
the close frame goes out).

Daphne also drops the `reason` of the ASGI close message (its `handle_reply` passes the code
alone), so a flood's 1008 would reach the client with an empty reason: `install` passes it on,
cut to the 123 bytes a close frame holds, for every code.

Daphne, autobahn and Twisted are pinned exactly in pyproject.toml, and
`tests/web/test_internals.py` checks both methods' signatures and the frame written, so an
upgrade that moves them fails there. Should one reach a server anyway, `install` finds the frame
writer changed and closes those sockets through Twisted's public `loseConnection` instead: no
close frame, so the browser sees 1006 and reconnects, which is what 1011-1013 ask for.
"""

import functools
import inspect
import logging
from typing import Any

from daphne.ws_protocol import WebSocketProtocol

REGISTERED_SERVER_CODES = frozenset({1001, 1008, 1011, 1012, 1013})
REASON_BYTES = 123
"""A close frame's payload is at most 125 bytes, two of them the code (RFC 6455, 5.5)."""

CLOSE_HANDSHAKE_SECONDS = 10
"""How long a socket the server closes waits for the peer's close frame before dropping it."""

log = logging.getLogger(__name__)


def install() -> None:
    """Patch Daphne's `serverClose` for this process (Daphne's own stays at `__wrapped__`); a
    second call changes nothing."""
    original = WebSocketProtocol.serverClose
    if getattr(original, "lets_registered_codes_through", False):
        return
    fits = frame_writer_fits()
    if not fits:
        log.warning(
            "autobahn's sendCloseFrame changed: close codes 1001/1008/1011-1013 become 1006"
        )

    @functools.wraps(original)
    def server_close(protocol: Any, code: int | None = None, reason: str = "") -> None:
        protocol.closeHandshakeTimeout = CLOSE_HANDSHAKE_SECONDS
        if code not in REGISTERED_SERVER_CODES:
            if reason:
                protocol.sendClose(code=1000 if code is None else code, reason=reason)
            else:
                original(protocol, code)
        elif fits:
            reason_utf8 = reason.encode()[:REASON_BYTES].decode(errors="ignore").encode()
            protocol.sendCloseFrame(code=code, reasonUtf8=reason_utf8 or None, isReply=False)
        else:
            protocol.transport.loseConnection()

    server_close.lets_registered_codes_through = True  # type: ignore[attr-defined]
    WebSocketProtocol.serverClose = server_close
    if not getattr(WebSocketProtocol.handle_reply, "passes_close_reasons", False):
        WebSocketProtocol.handle_reply = _with_reasons(WebSocketProtocol.handle_reply)


def _with_reasons(handle_reply: Any) -> Any:
    """Daphne's `handle_reply`, but a close of an open socket with a reason closes with it."""

    @functools.wraps(handle_reply)
    def handle(protocol: Any, message: dict[str, Any]) -> None:
        reason = message.get("reason") if message.get("type") == "websocket.close" else None
        if reason and protocol.state != protocol.STATE_CONNECTING:
            protocol.serverClose(code=message.get("code"), reason=str(reason))
        else:
            handle_reply(protocol, message)

    handle.passes_close_reasons = True  # type: ignore[attr-defined]
    return handle


def fail_with_close_frame(connection: Any) -> None:
    """Make autobahn end a connection whose peer broke the rules (a frame or message past the
    size limit, text that is not UTF-8) with a close frame naming why, 1009 or 1007 as
    docs/operations.md says, instead of dropping it (which the peer sees as 1006 and retries).
    `failByDrop` is autobahn's documented protocol option; Daphne leaves it at its default,
    True, and the factory copies it onto each connection, so it is set per connection here."""
    if connection is not None:
        connection.failByDrop = False


def frame_writer_fits() -> bool:
    """Whether Daphne still closes with `serverClose(code)` and autobahn's frame writer still
    takes `code`, `reasonUtf8` and `isReply`, as on the pinned versions."""
    try:
        close = inspect.signature(WebSocketProtocol.serverClose).parameters
        writer = inspect.signature(WebSocketProtocol.sendCloseFrame).parameters
    except (AttributeError, TypeError, ValueError):
        return False
    return (
        list(close)[:2] == ["self", "code"] and {"code", "reasonUtf8", "isReply"} <= writer.keys()
    )
