"""The room socket's Origin check: the page must come from this very site, scheme and port too.

Channels' `AllowedHostsOriginValidator` compares host names only, so a page served from another
port or scheme of the same host (`http://127.0.0.1:9999` against a site on `:8000`, a plain-HTTP
page on the site's host) could open sockets in the visitor's name. Browsers always send `Host`
and `Origin` on a websocket handshake; here the Origin's scheme, host and port must be the
request's own, as Django's CSRF check asks of a form post, or one of CSRF_TRUSTED_ORIGINS.

The request's scheme comes from the proxy's header when SECURE_PROXY_SSL_HEADER says which
(deploy/nginx.conf always sets X-Forwarded-Proto), else from the ASGI scope; Daphne gives a
websocket none, and then the scheme cannot be checked and only host and port are. A handshake
without a Host header is no browser's (a test client, a script, which can write any Origin
anyway): its Origin's host must be one of ALLOWED_HOSTS, as with Channels' check. A bot's
handshake needs none (`bot_sockets`): it uses no cookie.
"""

from typing import Any
from urllib.parse import SplitResult, urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import validate_host

from .bot_sockets import exempt_from_origin

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
WEB_SCHEMES = {"ws": "http", "wss": "https"}


class SameOriginValidator:
    """ASGI middleware: refuse a websocket handshake whose Origin is not the site's own."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not (exempt_from_origin(scope) or same_origin(scope)):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def same_origin(scope: dict[str, Any]) -> bool:
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    origin = _parse(headers.get(b"origin"))
    if origin is None or origin.scheme not in ("http", "https") or not origin.hostname:
        return False
    if any(_trusted(origin, pattern) for pattern in settings.CSRF_TRUSTED_ORIGINS):
        return True
    if b"host" not in headers:
        return validate_host(_bracketed(origin.hostname), _allowed_hosts())
    host = _parse(b"//" + headers[b"host"])
    if (
        host is None
        or not host.hostname
        or not validate_host(_bracketed(host.hostname), _allowed_hosts())
    ):
        return False
    scheme = _scheme(scope, headers)
    if scheme is not None and scheme != origin.scheme:
        return False
    return origin.hostname == host.hostname and _port(origin) == _port(host, origin.scheme)


def _parse(value: bytes | None) -> SplitResult | None:
    if value is None:
        return None
    try:
        parsed = urlsplit(value.decode("latin-1").strip())
        parsed.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError:
        return None
    return parsed


def _port(url: SplitResult, scheme: str | None = None) -> int | None:
    return url.port or DEFAULT_PORTS.get(scheme or url.scheme)


def _bracketed(hostname: str) -> str:
    """As ALLOWED_HOSTS writes an IPv6 address ([::1]); urlsplit drops the brackets."""
    return f"[{hostname}]" if ":" in hostname else hostname


def _allowed_hosts() -> list[str]:
    """As Django's `HttpRequest.get_host` reads ALLOWED_HOSTS."""
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return list(settings.ALLOWED_HOSTS)


def _scheme(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str | None:
    """http or https as the browser reached the site, or None when nothing says."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        if name in headers:
            sent = headers[name].decode("latin-1").split(",")[0].strip()
            return "https" if sent == proxy[1] else "http"
    return WEB_SCHEMES.get(scope.get("scheme", ""))


def _trusted(origin: SplitResult, pattern: str) -> bool:
    """As Django's CSRF check reads CSRF_TRUSTED_ORIGINS: scheme://host[:port], where a host
    may start with `*.` for its subdomains."""
    trusted = _parse(pattern.encode("latin-1", "replace"))
    if trusted is None or trusted.scheme != origin.scheme or not trusted.hostname:
        return False
    if not origin.hostname:  # the caller refused such an origin already
        return False
    if _port(trusted) != _port(origin):
        return False
    if trusted.hostname.startswith("*."):
        return origin.hostname.endswith(trusted.hostname[1:])
    return origin.hostname == trusted.hostname
