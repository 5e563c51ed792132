"""How a bot opens the room websocket: with its seat's token instead of the browser session,
and asking for JSON events instead of HTML (DESIGN.md, "Bots on the websocket").

The token comes in an `Authorization: Bearer` header, or `?token=` where a client cannot set
headers; JSON is asked for with the `json` subprotocol (`Sec-WebSocket-Protocol: json`) or
`?format=json`. A handshake that carries a token is exempt from the Origin check
(`origin.SameOriginValidator`): that check stops other sites from using a visitor's session
cookie, and a token is a credential no other site holds; such a socket never reads the session.
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


def presents_token(scope: dict[str, Any]) -> bool:
    return credentials(scope).token is not None


def _bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None
