"""ASGI entry point: Django's HTTP app first, then the websocket routes (Channels sample layout)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.live import shutdown  # noqa: E402
from games.live.origin import SameOriginValidator  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.live.socket_session import ReadOnlySessionStack  # noqa: E402

shutdown.install()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Scheme, host and port of the page must be the site's own (Channels' own check compares
        # host names only).
        "websocket": SameOriginValidator(ReadOnlySessionStack(URLRouter(websocket_urlpatterns))),
    }
)
