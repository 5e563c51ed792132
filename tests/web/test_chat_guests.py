"""A guest's chat lines are marked apart from signed-in people's (docs/contracts.md, "Players
and ratings"), on the server, on the new line and in the logs a snapshot sends alike."""

import pytest

from games.broadcast import chat_view
from games.players import accounts
from games.rooms import chat, joining
from games.store.models import ChatMessage
from tests.helpers.web import make_room

pytestmark = pytest.mark.django_db

GUEST_MARK = '<span class="badge guest"'


def line_of(html: str, author: str) -> str:
    return html.split(f'data-author="{author}"', 1)[1].split("</li>", 1)[0]


def test_a_guests_line_is_marked_guest_and_a_signed_in_persons_is_not():
    room = make_room()
    guest = joining.join_room(room, "Gus")
    person = joining.join_room(room, "Ana_c", accounts.sign_up("Ana_c", "correct-horse-battery-9"))

    said = [
        chat.say(room, seat, "hello", address="198.51.100.1", sender=seat.pk)
        for seat in (guest, person)
    ]
    spectator = chat.say(room, None, "hi all", address="198.51.100.2", sender="s", spectator="ab12")

    assert [m.guest for m in ChatMessage.objects.order_by("id")] == [True, False, False]
    assert GUEST_MARK in chat_view.line_html(said[0])
    assert GUEST_MARK not in chat_view.line_html(said[1])
    assert GUEST_MARK not in chat_view.line_html(spectator)  # a spectator is marked as one
    logs = chat_view.logs_html(room, player=True)
    assert GUEST_MARK in line_of(logs, "Gus")
    assert GUEST_MARK not in line_of(logs, "Ana_c")
