"""A socket's incoming bytes straight to autobahn's parser, without its debug line.

Autobahn's `dataReceived`, which Daphne's websocket inherits, formats the arguments of a debug
log line on every read from the socket (the method's qualified name and the peer, coloured with
`click` when it is installed), whether or not anything logs at debug level, and then hands the
bytes to `_dataReceived`, its parser. That formatting takes about 4 µs in a loop and 65 µs on a
move that arrives after a pause (docs/performance.md, issue 17 round three); every move and
every pointer position pays it. `install` gives Daphne's protocol a `dataReceived` that calls
the parser alone. (`daphne_frames` skips the same kind of debug line on the way out.)

`_dataReceived` is autobahn's internal. Autobahn is pinned exactly in pyproject.toml, and
`tests/web/test_internals.py` checks that its `dataReceived` still does nothing but the debug
line and that call; should an upgrade change it anyway, `install` leaves Daphne's protocol as it
is and logs a warning.
"""

import inspect
import logging
import re
from typing import Any

from daphne.ws_protocol import WebSocketProtocol

from .switch import shortcut

log = logging.getLogger(__name__)


def install() -> None:
    """Patch Daphne's protocol for this process; a second call changes nothing."""
    if not shortcut("reads"):
        return
    if getattr(WebSocketProtocol.dataReceived, "skips_debug_line", False):
        return
    if not reader_fits():
        log.warning("autobahn's dataReceived changed: incoming frames keep its debug line")
        return

    def data_received(protocol: Any, data: bytes) -> None:
        protocol._dataReceived(data)

    data_received.skips_debug_line = True  # type: ignore[attr-defined]
    WebSocketProtocol.dataReceived = data_received


def reader_fits() -> bool:
    """Whether the `dataReceived` Daphne's protocol inherits still calls nothing of its own but
    `self._dataReceived(data)` (its debug line aside), as on the pinned autobahn."""
    try:
        source = inspect.getsource(WebSocketProtocol.dataReceived)
    except (OSError, TypeError):
        return False
    own_calls = re.findall(r"self\.(\w+)\(", source)
    return own_calls == ["_dataReceived"] and "self._dataReceived(data)" in source
