"""Every touch of a library's private parts, one module each, and nowhere else in the app.

Each module says why it exists, the upstream issue it works around when there is one, and the
test that fails when an upgrade moves what it touches; docs/operations.md ("Library internals")
keeps the one inventory, with the figure that kept each speed shortcut. Two kinds:

- safety touches, always on: they protect against a named attack or fault (`twisted_backlog`:
  the output limit for sockets that never read, and their memory freed; `daphne_close_codes`:
  the close codes the page relies on; `autobahn_control_frames`: pings, pongs and closes
  counted against a budget, issue 33's ping flood; `django_orm`: the ORM's converters and casts
  that the move's hand-written SQL reads and writes rows through, so they match the ORM's);
- speed shortcuts, each measured at a tenth of a move's CPU or more (`daphne_frames`,
  `channels_consumer`, `django_pages`): `SPEED_SHORTCUTS=off` turns them all off (`shortcut`),
  and CI runs the websocket and relay tests once that way too.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from .switch import shortcut

if TYPE_CHECKING:
    from .autobahn_control_frames import Budget

__all__ = ["PINNED", "install", "shortcut"]

PINNED = frozenset({"daphne", "autobahn", "twisted", "channels", "django"})
"""The libraries whose internals a module here touches: pinned exactly (==) in pyproject.toml,
and no other (tests/test_lock.py)."""


def install(control_frame_budget: "Callable[[str], Budget]") -> None:
    """The process-wide patches, once, from the ASGI entry point (`config.asgi`); control
    frames are counted against `control_frame_budget(address)`, one per socket
    (`games.protocol.flood.ControlFrames`)."""
    from . import autobahn_control_frames, daphne_close_codes

    daphne_close_codes.install()
    autobahn_control_frames.install(control_frame_budget)
