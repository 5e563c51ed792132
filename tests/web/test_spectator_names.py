"""A spectator takes a name on their socket (issue 35, point 3): the nickname rules, refused
with a specific error to that socket alone; their chat lines carry it (`author`, tagged as a
spectator); the host's menu names them by it."""

import pytest
from channels.db import database_sync_to_async

from games.broadcast import host_view
from games.rooms import chat, joining
from games.store.models import ChatMessage
from tests.helpers.web import connect, make_room, receive_until, refused, send, settle

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_chat_limits():
    chat.reset()


async def room_with_a_spectator():
    room = await database_sync_to_async(make_room)()
    ana = await database_sync_to_async(joining.join_room)(room, "Ana")
    mine, watcher = await connect(room, ana), await connect(room, watch=True)
    await settle(mine, watcher, online=1, watching=1)
    return room, mine, watcher


async def test_a_named_spectators_lines_carry_the_name_and_the_host_menu_lists_it():
    room, mine, watcher = await room_with_a_spectator()
    await send(watcher, action="name", name="  Cy  ")
    taken = await receive_until(watcher, 'id="spectator-name"')
    assert 'hx-swap-oob="true"' in taken and "<strong>Cy</strong> (spectator)" in taken
    await send(watcher, action="chat", text="go Ana")
    for socket in (mine, watcher):
        line = await receive_until(socket, "go Ana")
        assert 'data-author="Cy"' in line and "spectator #" in line
    kept = await database_sync_to_async(ChatMessage.objects.get)(text="go Ana")
    assert (kept.author, kept.channel) == ("Cy", ChatMessage.Channel.SPECTATORS) and kept.spectator
    menu = await database_sync_to_async(host_view.menu_html)(room)
    assert f"Cy #{kept.spectator[:4]}" in menu and f'value="{kept.spectator}"' in menu
    for socket in (mine, watcher):
        await socket.disconnect()


async def test_an_unnamed_spectator_still_reads_spectator():
    room, mine, watcher = await room_with_a_spectator()
    await send(watcher, action="chat", text="hello")
    assert 'data-author="Spectator"' in await receive_until(mine, "hello")
    menu = await database_sync_to_async(host_view.menu_html)(room)
    assert "Spectator #" in menu
    for socket in (mine, watcher):
        await socket.disconnect()


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Spectator", "a name the app uses itself"),
        ("Host", "a name the app uses itself"),
        ("ana", "a player&#x27;s name in this room"),
        ("Аna", "looks like"),  # a Cyrillic А
        ("e" + "\u0301" * 6, "combining marks"),
        ("", "Choose a nickname"),
        ("x" * 25, "at most 24"),
        (7, "Choose a nickname"),
    ],
)
async def test_a_name_against_the_nickname_rules_is_refused_to_that_socket_alone(name, error):
    room, mine, watcher = await room_with_a_spectator()
    await refused(watcher, [mine], room, {"action": "name", "name": name}, error)
    await send(watcher, action="chat", text="still me")
    assert 'data-author="Spectator"' in await receive_until(watcher, "still me")
    for socket in (mine, watcher):
        await socket.disconnect()


async def test_a_player_takes_no_spectator_name_and_a_name_takes_no_other_field():
    room, mine, watcher = await room_with_a_spectator()
    await refused(
        mine, [watcher], room, {"action": "name", "name": "Cy"}, "Players have their name"
    )
    await refused(watcher, [mine], room, {"action": "name", "name": "Cy", "x": 1}, "Unknown field")
    await refused(watcher, [mine], room, {"action": "name"}, "Missing &quot;name&quot;")
    for socket in (mine, watcher):
        await socket.disconnect()
