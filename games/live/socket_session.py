"""The room socket's session: read, never written.

Channels' `SessionMiddleware` wraps `send` so that an HTTP response can save a changed session
and set its cookie; on a websocket it still looks into the lazy session on every message sent,
so once per socket for every move of its room (docs/performance.md). The room socket only reads
which seats the browser holds, which the pages wrote, so it gets Django's session store as is:
it loads on first use, in `RoomConsumer._enter` on the database thread.
"""

from importlib import import_module
from typing import Any

from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware
from django.conf import settings


class ReadOnlySessionMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        store = import_module(settings.SESSION_ENGINE).SessionStore
        session = store(scope["cookies"].get(settings.SESSION_COOKIE_NAME))
        return await super().__call__({**scope, "session": session}, receive, send)


def ReadOnlySessionStack(inner: Any) -> CookieMiddleware:  # noqa: N802 (as Channels' stacks)
    """The cookies parsed, then the session store for the cookie's key."""
    return CookieMiddleware(ReadOnlySessionMiddleware(inner))
