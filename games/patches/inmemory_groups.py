"""Whether a room's group has no member but this process's, on Channels' in-memory layer (the
`relay` speed shortcut).

With one process (`make run`: the in-memory layer) a room's message need not go round the layer
at all: `live.relay.hear_here` hands it to the room's sockets here and skips the layer's copy,
a queue and a task wake-up per move. Only the layer knows who else is in a group, and it does not
publish it: `InMemoryChannelLayer.groups` is its internal. Other layers (Redis) have members in
other processes and always carry the message. `tests/web/test_relay.py`
(`test_a_message_from_this_process_reaches_its_sockets_here_without_the_layer`) fails when an
upgrade moves `groups`.
"""

from typing import Any

from channels.layers import InMemoryChannelLayer


def alone(layer: Any, group: str, channel: str) -> bool:
    """Whether `channel` is the only member of `group` on the in-memory `layer`; False on any
    other layer, and when `groups` is not there (the layer then carries every message)."""
    if not isinstance(layer, InMemoryChannelLayer):
        return False
    return bool(getattr(layer, "groups", {}).get(group, {}).keys() == {channel})
