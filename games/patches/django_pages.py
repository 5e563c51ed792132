"""Django's ASGI handler with each page served start to finish in one trip to a worker thread
(the `pages` speed shortcut).

Django's `ASGIHandler` runs its middleware in async mode. Every `MiddlewareMixin` layer of
`MIDDLEWARE` (security, sessions, common, CSRF, auth, messages, clickjacking, CSP) then hops to a
thread and back for its `process_request` and again for its `process_response`, the view hops
once more, the `request_started` signal's receivers hop, and `response.close` hops; WhiteNoise,
sync-only, turns back from the thread to the loop in the middle. Each request also runs in a
`ThreadSensitiveContext` of its own, so its thread is a new one, with a new database connection
(SQLite's pragmas, or a connection taken from PostgreSQL's pool) for every page.

Here the middleware is loaded in sync mode, as under WSGI, and the whole of Django's sync
request (`request_started`, the request, the middleware chain and the view, and for a response
in memory `close` with `request_finished`) runs in one call on a small pool of long-lived page
threads (`PAGE_THREADS`), each keeping its database connection as `CONN_MAX_AGE` allows. The
loop keeps what is asynchronous: reading the body and sending the response. Async views still
work: Django's sync handler runs them with `async_to_sync`, which goes back to the server's loop.
A disconnect while the view runs is no longer listened for: Django cancels only the await, a
sync view finishes anyway, and Daphne drops what is sent to a closed connection.

`handle`, `read_body`, `create_request`, `send_response`, `chunk_size` and `_handler_class`
are the handler's internals, Django pinned exactly: `tests/web/test_internals.py`
(`test_djangos_asgi_handle_still_does_only_what_pages_does`) fails when an upgrade makes
`handle` do more. Measured: docs/performance.md ("Today's figures", a player's arrival).
"""

from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any, BinaryIO

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix


class Pages(ASGIHandler):  # type: ignore[misc]  # Django ships no types
    """`ASGIHandler`, each request one call on `threads` (see the module)."""

    def __init__(self, threads: int) -> None:
        BaseHandler.__init__(self)  # not ASGIHandler's: it loads the middleware in async mode
        self.load_middleware(is_async=False)
        self.threads = ThreadPoolExecutor(threads, thread_name_prefix="page")
        self.respond_there = self.on_page_thread(self.respond)  # wrapped once, as `receiving._play`

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with closing(body_file):
            response = await self.respond_there(scope, body_file)
            await self.send_response(response, send)
            if response.streaming:
                await self.on_page_thread(response.close)()

    def on_page_thread(self, call: Any) -> Any:
        return sync_to_async(call, thread_sensitive=False, executor=self.threads)

    def respond(self, scope: dict[str, Any], body_file: BinaryIO) -> HttpResponseBase:
        """Django's sync request, as `WSGIHandler.__call__` makes it, on a page thread."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        if not response.streaming:
            response.close()  # request_finished, on the thread that holds the connection
        return response
