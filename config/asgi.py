"""ASGI entry point: Django's HTTP app first, then the websocket routes (Channels sample layout)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.live import shutdown  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.live.socket_session import ReadOnlySessionStack  # noqa: E402

shutdown.install()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            ReadOnlySessionStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
