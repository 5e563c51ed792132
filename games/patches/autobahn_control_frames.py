"""Websocket control frames (ping, pong, close) counted before autobahn answers them.

A control frame never reaches the app: autobahn parses it, answers a ping with a pong, and
tells Daphne nothing, so no message budget sees it and a socket needs no token to send them.
Four tokenless sockets sending masked pings, 200 to a write, kept Daphne at 97 % of a core and a
quiet room's move replies at a p50 of 2 s (issue 33; `python -m bench.ping_flood`). autobahn
has no option to bound them (its `autoPing*` options are the server's own pings), and every
frame is parsed in Python whatever the app does; what the app can do is to stop reading a peer
that sends too many. `install` wraps the one place every control frame of a server socket goes
through once its payload is in, `processControlFrame`: a frame the app's budget refuses is not
answered, the socket gets a close frame with 1008 and the reason, what it sent after is dropped
unread, and the connection is closed at once (`loseConnection`: the close frame goes out, then
the connection; no close handshake to wait for, during which the peer could go on sending).
autobahn's close handshake timer still aborts a peer that does not read even that.

`processControlFrame` (no arguments; the frame in `current_frame` and `control_frame_data`),
the received bytes in `data`, `sendCloseFrame(code, reasonUtf8, isReply)` and Daphne's
`client_addr` (the address the scope carries, `X-Forwarded-For` behind the proxy) are
autobahn's and Daphne's internals: both are pinned exactly in pyproject.toml and
`tests/web/test_control_frames.py` checks them on the pinned versions. Should an upgrade move
them anyway, `install` leaves autobahn as it is, with a warning: control frames uncounted, as
before. Upstream, autobahn offers no limit on control frames (a peer's pings are the RFC's to
answer: RFC 6455, 5.5.2); see docs/operations.md, "Library internals".
"""

import functools
import inspect
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from daphne.ws_protocol import WebSocketProtocol

POLICY_VIOLATION = 1008
REASON_BYTES = 123
"""A close frame's payload is at most 125 bytes, two of them the code (RFC 6455, 5.5)."""

log = logging.getLogger(__name__)


class Budget(Protocol):
    """What one socket's control frames are counted against (`games.protocol.flood`)."""

    def refusal(self, now: float) -> str | None:
        """Count one control frame; None when it may be answered, else why the socket closes."""
        ...


def install(budget_for: Callable[[str], Budget]) -> None:
    """Count every control frame of Daphne's websockets against `budget_for(address)`, made
    at a socket's first one (`address`: the client's, or "unknown"); a second call changes
    nothing."""
    original = WebSocketProtocol.processControlFrame
    if getattr(original, "counts_control_frames", False):
        return
    if not fits():
        log.warning("autobahn's processControlFrame changed: control frames are not counted")
        return

    @functools.wraps(original)
    def process_control_frame(protocol: Any) -> bool:
        budget = protocol.__dict__.get("control_frame_budget")
        if budget is None:
            client = getattr(protocol, "client_addr", None)
            budget = protocol.control_frame_budget = budget_for(
                str(client[0]) if client else "unknown"
            )
        reason = budget.refusal(time.monotonic())
        if reason is None:
            return bool(original(protocol))
        refuse(protocol, reason)
        return False

    process_control_frame.counts_control_frames = True  # type: ignore[attr-defined]
    WebSocketProtocol.processControlFrame = process_control_frame


def refuse(protocol: Any, reason: str) -> None:
    """Close with 1008 and `reason` (unless a close frame went out already), drop what the peer
    sent after this frame, read nothing more, and close once the close frame is out."""
    protocol.control_frame_data = None
    protocol.data = b""
    reason_utf8 = reason.encode()[:REASON_BYTES].decode(errors="ignore").encode()
    protocol.sendCloseFrame(code=POLICY_VIOLATION, reasonUtf8=reason_utf8, isReply=False)
    protocol.transport.loseConnection()


def fits() -> bool:
    """Whether autobahn still processes a control frame in `processControlFrame(self)` and
    writes a close frame with `sendCloseFrame(code, reasonUtf8, isReply)`, as on the pinned
    version."""
    try:
        process = inspect.signature(WebSocketProtocol.processControlFrame).parameters
        writer = inspect.signature(WebSocketProtocol.sendCloseFrame).parameters
    except (AttributeError, TypeError, ValueError):
        return False
    return list(process) == ["self"] and {"code", "reasonUtf8", "isReply"} <= writer.keys()
