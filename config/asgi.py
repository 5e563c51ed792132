"""ASGI entry point: Django's HTTP app first, then the websocket routes (Channels sample layout).

Once everything is imported, the objects made so far (modules, classes, settings, templates:
about 130,000) are moved out of the garbage collector's sight with `gc.freeze()`: they live as
long as the process, and a full collection walked all of them, a pause of 60-115 ms for every
room of the process on the development machine (docs/performance.md, issue 17 round three).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware  # noqa: E402

from games import patches  # noqa: E402
from games.live import glibc_malloc, shutdown  # noqa: E402
from games.live.origin import SameOriginValidator  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.live.socket_session import ReadOnlySessionStack  # noqa: E402
from games.patches.django_pages import Pages  # noqa: E402
from games.protocol import flood  # noqa: E402
from games.rooms import nicknames  # noqa: E402
from games.server_loop import KnowsItsLoop  # noqa: E402
from games.store import sqlite_checkpoints  # noqa: E402

patches.install(flood.ControlFrames)
# Each page in one trip to a page thread, not Django's hop per middleware layer (`django_pages`).
pages = Pages(settings.PAGE_THREADS) if patches.shortcut("pages") else django_asgi_app
shutdown.install()
glibc_malloc.keep_large_blocks_mapped()
sqlite_checkpoints.start_in_server()
nicknames.warm()  # the confusables' table, before the first name rather than during it

# Outermost: work handed to the database thread knows the server's loop (`games.server_loop`).
# Then the client's address and scheme, for pages and sockets alike: the peer's own, unless the
# peer is one of TRUSTED_PROXIES, whose X-Forwarded-For and X-Forwarded-Proto are believed
# (uvicorn's middleware; Daphne's --proxy-headers would believe them from anyone, and let every
# client of a Daphne reached directly pick the address its limits count).
application = KnowsItsLoop(
    ProxyHeadersMiddleware(
        ProtocolTypeRouter(
            {
                "http": pages,
                # Scheme, host and port of the page must be the site's own (Channels' own check
                # compares host names only).
                "websocket": SameOriginValidator(
                    ReadOnlySessionStack(URLRouter(websocket_urlpatterns))
                ),
            }
        ),
        trusted_hosts=settings.TRUSTED_PROXIES,
    )
)

gc.collect()  # the start's own garbage first: what is frozen is never collected
gc.freeze()
