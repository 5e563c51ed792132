"""How a bot opens the room websocket: with its seat's token instead of the browser session,
and asking for JSON events instead of HTML (docs/contracts.md, "Bots on the websocket").

The token comes in an `Authorization: Bearer` header, or `?token=` where a client cannot set
headers; JSON is asked for with the `json` subprotocol (`Sec-WebSocket-Protocol: json`) or
`?format=json`. The Origin check (`origin.SameOriginValidator`) stops other sites from using
a visitor's session cookie; it does not apply to a handshake that carries a token (a credential
no other site holds; such a socket never reads the session), nor to one asking for JSON with no
Origin at all (a script watching: every browser sends an Origin).
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

SUBPROTOCOL = "json"


@dataclass(frozen=True, slots=True)
class Credentials:
    token: str | None
    """The seat's token the bot presented, or None (a page, or a watching bot)."""
    json: bool
    """Whether the socket reads JSON events."""
    watch: bool
    """`?watch=1`: a spectator's socket even with a session."""


def credentials(scope: dict[str, Any]) -> Credentials:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    token = _bearer(scope) or (query.get("token") or [None])[0]
    json = SUBPROTOCOL in scope.get("subprotocols", ()) or query.get("format") == ["json"]
    return Credentials(token or None, json, query.get("watch") == ["1"])


def exempt_from_origin(scope: dict[str, Any]) -> bool:
    found = credentials(scope)
    if found.token is not None:
        return True
    return found.json and not any(name.lower() == b"origin" for name, _ in scope.get("headers", ()))


def _bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None
