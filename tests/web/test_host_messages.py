"""Host commands parsed at the edge (`messages.host_command`): each wrong body its own message,
before anything is read; no database."""

import re

import pytest

from games.protocol.messages import BadMessage, HostCommand, host_command

HANDLE = "0123456789ab"
"""A spectator's handle as `host.handle` makes them: twelve characters."""


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"action": {}}, '"action" must be text: use kick, lock'),
        ({"action": []}, '"action" must be text: use kick, lock'),
        ({"seat": 1}, 'Missing "action": use kick, lock'),
        ({"action": "kick"}, 'Name someone: "seat"'),
        ({"action": "kick", "seat": 1, "spectator": HANDLE}, "Name someone"),
        ({"action": "kick", "spectators": True}, "Unknown field 'spectators': kick takes"),
        ({"action": "lock", "seat": 1}, "lock takes nothing more"),
        ({"action": "cap"}, 'Missing "players"'),
        ({"action": "cap", "players": "many"}, '"players" must be a whole number'),
        ({"action": "visibility", "public": "maybe"}, '"public" must be true or false'),
        ({"action": "visibility", "public": 1}, '"public" must be true or false'),
        ({"action": "mute", "spectators": False}, '"spectators" must be true'),
        ({"action": "mute", "spectator": "short"}, "a handle of 12 characters"),
        ({"action": "transfer"}, 'Missing "seat"'),
        ({"action": "spectator_count"}, '"shown" must be true or false'),
    ],
)
def test_a_bad_host_body_is_refused_with_its_own_reason(body, says):
    with pytest.raises(BadMessage, match=re.escape(says)):
        host_command(body)


def test_form_fields_arrive_as_text_and_parse_the_same():
    """The page's forms send every field as text (htmx's ws-send)."""
    assert host_command({"action": "cap", "players": "5", "HEADERS": {}}) == HostCommand(
        "cap", players=5
    )
    assert host_command({"action": "mute", "spectators": "true"}).spectators
    assert host_command({"action": "visibility", "public": "false"}).on is False
