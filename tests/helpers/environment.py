"""What the whole suite shares outside fixtures: whether this is CI, the origin a test client
claims, a missing service's skip (a failure under CI) and a session holding seat tokens. Test
modules and helpers import these from here, never from a conftest."""

import os

import pytest
from django.contrib.sessions.backends.db import SessionStore

IN_CI = os.environ.get("CI", "").lower() == "true"
ORIGIN = "http://127.0.0.1:8000"


def skip_or_fail(reason: str) -> None:
    """Outside CI a missing service skips with its reason; under CI=true it fails the test."""
    if IN_CI:
        pytest.fail(f"{reason} (CI must run this test)")
    pytest.skip(reason)


def session_cookie(seats: dict[str, str]) -> bytes:
    """A real session holding seat tokens, as the room page would have stored them."""
    session = SessionStore()
    session["players"] = seats
    session.create()
    return f"sessionid={session.session_key}".encode()
