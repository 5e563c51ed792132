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

from games import patches  # noqa: E402
from games.live import glibc_malloc, shutdown  # noqa: E402
from games.live.origin import SameOriginValidator  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.live.socket_session import ReadOnlySessionStack  # noqa: E402
from games.protocol import flood  # noqa: E402
from games.server_loop import KnowsItsLoop  # noqa: E402
from games.store import sqlite_checkpoints  # noqa: E402

patches.install(flood.ControlFrames)
shutdown.install()
glibc_malloc.keep_large_blocks_mapped()
sqlite_checkpoints.start_in_server()

# Outermost: work handed to the database thread knows the server's loop (`games.server_loop`).
application = KnowsItsLoop(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # Scheme, host and port of the page must be the site's own (Channels' own check
            # compares host names only).
            "websocket": SameOriginValidator(
                ReadOnlySessionStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)

gc.collect()  # the start's own garbage first: what is frozen is never collected
gc.freeze()
