"""A hostile nickname stays text everywhere: pages, every kind of websocket fragment."""

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games.rooms import joining

from .helpers import connect, make_room, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOAD = '"><svg onload=alert(1)>'  # fits the 24-character nickname limit


def assert_escaped(html: str) -> None:
    assert "<svg" not in html
    assert "onload=alert(1)>" not in html.replace("&gt;", "")


async def test_a_script_nickname_is_escaped_in_pages_and_fragments():
    room = await sync_to_async(make_room)()
    evil = await sync_to_async(joining.join_room)(room, PAYLOAD)
    other = await sync_to_async(joining.join_room)(room, "Bo")
    watcher = await connect(room, watch=True)
    attacker = await connect(room, evil)
    bystander = await connect(room, other)

    messages = [await receive_until(watcher, "roster")]  # presence: the roster fragment
    await send(attacker, action="hover", x=1, y=1)
    messages.append(await receive_until(bystander, 'id="cursor-feed"'))
    await send(attacker, action="reveal", x=4, y=4)
    messages.append(await receive_until(watcher, "revealed"))  # narration names the mover
    await send(bystander, action="sync")
    messages.append(await receive_until(bystander, 'id="board"'))

    client = Client()
    await sync_to_async(client.post)(f"/r/{room.code}/join/", {"nickname": "Cy"})
    pages = [
        (await sync_to_async(client.get)(f"/r/{room.code}/")).content.decode(),
        (await sync_to_async(client.get)(f"/r/{room.code}/watch/")).content.decode(),
    ]
    for html in messages + pages:
        assert_escaped(html)
    assert any("&quot;&gt;&lt;svg onload=alert(1)&gt;" in html for html in pages)
    assert "&lt;svg" in messages[1] or "&lt;svg" in messages[0]
    for socket in (watcher, attacker, bystander):
        await socket.disconnect()
