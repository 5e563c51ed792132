"""Controls to sockets (`audiences.Control`) travel beside a room's texts, never inside them, and
the marks inside a race's texts (`audiences.LATE`, `LIVE`) never leave as they are."""

import msgpack

from games.broadcast import outbox
from games.live.consumer import RoomConsumer
from games.protocol import audiences
from games.protocol.audiences import Control


def test_controls_cross_the_layer_as_plain_strings_in_a_key_of_their_own():
    """channels-redis packs messages with msgpack: the controls come back as plain strings,
    and read back as the same controls; the texts hold texts alone."""
    sent = outbox.message_of({"players": "<p>notice</p>"}, {"seat:3": Control.KICKED})
    assert sent["texts"] == {"players": "<p>notice</p>"}
    back = msgpack.unpackb(msgpack.packb(sent))
    assert back["controls"] == {"seat:3": "kicked"} and type(back["controls"]["seat:3"]) is str
    pick = audiences.pick_control(back["texts"], back["controls"], audiences.order(3))
    assert pick is Control.KICKED
    assert audiences.pick_control(back["texts"], back["controls"], audiences.order(1)) is None


def test_a_message_without_controls_is_as_it_was():
    assert outbox.message_of("<p>x</p>") == {"type": "room.html", "html": "<p>x</p>"}
    assert outbox.message_of({"all": "x"}) == {"type": "room.html", "texts": {"all": "x"}}
    assert "controls" not in outbox.message_of({"all": "x"}, {})


def test_a_key_of_both_is_the_controls_and_one_text_only_is_a_text():
    texts, controls = {"seat:2": "menu", "players": "line"}, {"seat:2": "left"}
    assert audiences.pick_control(texts, controls, audiences.order(2)) is Control.LEFT
    assert audiences.pick_control(texts, controls, audiences.order(4)) is None
    closed = {key: control.value for key, control in audiences.CLOSED.items()}
    for keys in (audiences.order(None), audiences.order(1), audiences.order(1, json=True)):
        assert audiences.pick_control({}, closed, keys) is Control.CLOSED


def test_a_racers_page_never_sends_a_text_as_it_is():
    """A stopped racer's text is their board, then `LATE`, then the rivals' boards: the fast
    path, which writes a text straight to the connection, must not take it."""
    assert audiences.paced(1, json=False, per_seat_boards=True)
    assert not audiences.paced(1, json=True, per_seat_boards=True)
    assert not audiences.paced(None, json=False, per_seat_boards=True)
    assert not audiences.paced(1, json=False, per_seat_boards=False)
    socket = RoomConsumer()
    socket.connection = object()  # never reached
    socket.paced = True
    assert not socket.deliver_now("<p>own</p>" + audiences.LATE + "<p>rivals</p>")
