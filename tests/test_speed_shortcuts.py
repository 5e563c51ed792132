"""`SPEED_SHORTCUTS`: which speed shortcuts through a library's internals are on (games.patches)."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import SPEED_SHORTCUTS_ALL, speed_shortcuts


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("on", SPEED_SHORTCUTS_ALL),
        ("", SPEED_SHORTCUTS_ALL),
        (" OFF ", frozenset()),
        ("frames", frozenset({"frames"})),
        ("dispatch, frames", frozenset({"dispatch", "frames"})),
    ],
)
def test_the_setting_names_all_none_or_some(written, read):
    assert speed_shortcuts(written) == read


def test_an_unknown_shortcut_stops_the_start():
    with pytest.raises(ImproperlyConfigured, match=r"SPEED_SHORTCUTS='frames,reads'.*dispatch"):
        speed_shortcuts("frames,reads")


def test_off_a_room_message_takes_daphnes_own_path(settings):
    """The framed send declines, and the consumer sends through Channels and Daphne."""
    from games.patches import daphne_frames
    from tests.helpers.web import open_socket

    protocol, wire = open_socket()
    settings.SPEED_SHORTCUTS = frozenset()
    assert not daphne_frames.send(protocol, "<p>hi</p>")
    assert wire.value() == b""
    settings.SPEED_SHORTCUTS = SPEED_SHORTCUTS_ALL
    assert daphne_frames.send(protocol, "<p>hi</p>")
    assert wire.value().endswith(b"<p>hi</p>")


@pytest.mark.parametrize(("shortcuts", "trips"), [(SPEED_SHORTCUTS_ALL, 0), (frozenset(), 1)])
async def test_off_a_frame_is_dispatched_by_channels_with_its_database_trip(
    settings, monkeypatch, shortcuts, trips
):
    import channels.consumer

    from games.live.consumer import RoomConsumer

    closed, handled = [], []

    async def counted():
        closed.append(1)

    class Probe(RoomConsumer):
        async def probe_ping(self, message):
            handled.append(message)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    settings.SPEED_SHORTCUTS = shortcuts
    await Probe().dispatch({"type": "probe.ping"})
    assert handled == [{"type": "probe.ping"}] and len(closed) == trips
