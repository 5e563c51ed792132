"""The room websocket driven for real: broadcasts reach everyone, errors reach only their sender."""

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db.backends.utils import CursorWrapper

from config.asgi import application
from games.broadcast import announce, outbox
from games.engine import minesweeper as engine
from games.live import rosters
from games.store.models import Game, Move

from .helpers import before_echo, cell_states, connect, fifty_fifty, receive_until, send, settle

pytestmark = pytest.mark.django_db(transaction=True)


def current_game(room) -> Game:
    return Game.objects.filter(room=room).order_by("-number").first()


async def test_a_reveal_reaches_both_players_and_a_spectator(room, ana, bo):
    sockets = [await connect(room, ana), await connect(room, bo), await connect(room, watch=True)]
    await send(sockets[0], action="reveal", x=4, y=4)
    for socket in sockets:
        message = await receive_until(socket, 'id="game-meta"')
        assert 'data-version="1"' in message
        assert cell_states(message)[(4, 4)] == "revealed"
        assert "Ana revealed" in message
    game = await database_sync_to_async(current_game)(room)
    assert game.version == 1
    for socket in sockets:
        await socket.disconnect()


async def test_a_move_carries_the_movers_share_not_the_whole_roster(room, ana, bo):
    """Presence and seats have fragments of their own: a move updates only the count of cells
    its mover has revealed, by id, and a flag leaves the roster alone."""
    sockets = [await connect(room, ana), await connect(room, watch=True)]
    await send(sockets[0], action="reveal", x=4, y=4)
    messages = [await receive_until(socket, 'id="game-meta"') for socket in sockets]
    game = await database_sync_to_async(current_game)(room)
    state = engine.from_dict(game.state)
    revealed = len(state.revealed)
    for message in messages:
        assert 'id="roster"' not in message
        share = re.search(
            r'<span class="share" id="share-(\d+)"[^>]*hx-swap-oob="true">(\d+)<', message
        )
        assert share is not None and share.groups() == ("0", str(revealed))
    hidden = next(cell for cell in range(81) if cell not in state.revealed)
    await send(sockets[0], action="flag", x=hidden % 9, y=hidden // 9)
    message = await receive_until(sockets[1], 'data-version="2"')
    assert 'id="roster"' not in message and 'class="share"' not in message
    for socket in sockets:
        await socket.disconnect()


def snapshots_preceded_by(html: str):
    """`announce.snapshot_for` that first sends `html` to the room, as a move committed while
    the snapshot is read would be."""
    snapshot_for = announce.snapshot_for

    def snapshot_after_a_room_message(room, seat, json=False):
        message = {"type": "room.html", "html": html}
        async_to_sync(get_channel_layer().group_send)(outbox.group_name(room.pk), message)
        return snapshot_for(room, seat, json=json)

    return snapshot_after_a_room_message


async def test_a_room_message_sent_while_a_snapshot_is_made_follows_the_snapshot(room, monkeypatch):
    """Every connection starts with the snapshot: the room's messages that reach the socket
    before its snapshot has gone out wait for it."""
    monkeypatch.setattr(announce, "snapshot_for", snapshots_preceded_by('<p id="early"></p>'))
    socket = await connect(room, watch=True)  # asserts that the snapshot came first
    assert 'id="early"' in await receive_until(socket, 'id="early"')
    await socket.disconnect()


async def test_a_room_message_sent_while_a_resync_snapshot_is_made_follows_it(room, monkeypatch):
    """A page that saw a version gap asks for a snapshot; a move committed while that snapshot
    is read must reach the page after it, or the older snapshot would overwrite the newer move
    and the page would wait for that version for ever (the cluster test caught this)."""
    socket = await connect(room, watch=True)
    await settle(socket, online=0, watching=1)
    plain = announce.snapshot_for
    monkeypatch.setattr(announce, "snapshot_for", snapshots_preceded_by('<p id="newer"></p>'))
    await send(socket, action="sync")
    first = await socket.receive_from(timeout=5)
    assert 'id="board"' in first and 'id="newer"' not in first
    assert 'id="newer"' in await receive_until(socket, 'id="newer"')
    monkeypatch.setattr(announce, "snapshot_for", plain)
    await send(socket, action="sync")  # holding ended: the next resync works as ever
    assert 'id="board"' in await receive_until(socket, 'id="board"')
    await socket.disconnect()


async def test_form_fields_arrive_as_strings_with_htmx_headers(room, ana):
    socket = await connect(room, ana)
    await send(socket, action="reveal", x="2", y="3", HEADERS={"HX-Request": "true"})
    message = await receive_until(socket, 'id="game-meta"')
    assert cell_states(message)[(2, 3)] == "revealed"
    await socket.disconnect()


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"x": 1}', 'Missing \\"action\\"|Missing &quot;action&quot;'),
        ('{"action": "explode", "x": 1, "y": 1}', "Unknown action"),
        ('{"action": "reveal", "x": "one", "y": 1}', "whole number"),
        ('{"action": "reveal", "x": 1.5, "y": 1}', "whole number"),
        ('{"action": "reveal", "x": 99, "y": 1}', "off the board"),
        ('{"action": "reveal", "x": -1, "y": 0}', "off the board"),
        ('{"action": "mark", "cell": 3}', "Minesweeper room"),
    ],
)
async def test_bad_messages_get_an_error_for_the_sender_alone(
    room, ana, bo, frame, expected, caplog
):
    sender, other = await connect(room, ana), await connect(room, bo)
    await settle(sender, other, online=2)
    await sender.send_to(text_data=frame)
    error = await receive_until(sender, 'id="room-error"')
    assert re.search(expected, error), error
    assert await before_echo(other) == []
    game = await database_sync_to_async(current_game)(room)
    assert game.version == 0
    assert await database_sync_to_async(Move.objects.count)() == 0
    # The connection goes on: a valid move still works.
    await send(sender, action="flag", x=0, y=0)
    assert cell_states(await receive_until(sender, 'id="game-meta"'))[(0, 0)] == "flagged"
    assert not [r for r in caplog.records if r.exc_info or r.levelname in ("ERROR", "CRITICAL")]
    await sender.disconnect()
    await other.disconnect()


async def test_oversized_frames_are_refused(room, ana):
    socket = await connect(room, ana)
    await socket.send_to(text_data='{"action": "sync", "pad": "' + "x" * 9000 + '"}')
    assert "too large" in await receive_until(socket, 'id="room-error"')
    await socket.disconnect()


async def test_a_spectator_cannot_move(room, ana):
    spectator = await connect(room, watch=True)
    await send(spectator, action="reveal", x=1, y=1)
    assert "Spectators can watch" in await receive_until(spectator, 'id="room-error"')
    await send(spectator, action="new_game")
    assert "Spectators can watch" in await receive_until(spectator, 'id="room-error"')
    game = await database_sync_to_async(current_game)(room)
    assert (game.version, game.number) == (0, 1)
    await spectator.disconnect()


async def test_a_spectators_move_is_refused_without_the_database(room, ana, monkeypatch):
    """Refused on the event loop: a flood of spectators' reveals must not queue on the one
    database thread in front of the room's real moves (issue 26, item 7)."""
    spectator = await connect(room, watch=True)
    await before_echo(spectator)  # the connection's own queries are over
    await rosters.told(room.pk)  # and its count, written with the room's presence message
    queries = []
    execute = CursorWrapper.execute

    def counted(self, sql, params=None):
        queries.append(sql)
        return execute(self, sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", counted)
    for frame in ({"action": "reveal", "x": 1, "y": 1}, {"action": "new_game"}):
        await send(spectator, **frame)
        assert "Spectators can watch" in await receive_until(spectator, 'id="room-error"')
    assert queries == []
    await spectator.disconnect()


async def test_moves_after_the_end_are_refused(room, ana):
    socket = await connect(room, ana)
    await send(socket, action="reveal", x=4, y=4)
    await receive_until(socket, 'id="game-meta"')
    game = await database_sync_to_async(current_game)(room)
    mine = min(engine.from_dict(game.state).field.mines)
    x, y = mine % 9, mine // 9
    await send(socket, action="reveal", x=x, y=y)
    lost = await receive_until(socket, 'data-status="lost"')
    assert cell_states(lost)[(x, y)] == "exploded"
    await send(socket, action="reveal", x=0, y=0)
    assert "The game is over" in await receive_until(socket, 'id="room-error"')
    game = await database_sync_to_async(current_game)(room)
    assert game.version == 2
    await socket.disconnect()


async def test_new_game_reaches_everyone_once(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    await send(first, action="new_game", game="1")
    await send(second, action="new_game", game="1")  # a simultaneous click: no second new game
    for socket in (first, second):
        snapshot = await receive_until(socket, 'id="board"')
        assert 'data-game="2"' in snapshot
    await before_echo(second)  # its click is done with: a socket's messages go one at a time
    game = await database_sync_to_async(current_game)(room)
    assert game.number == 2
    await first.disconnect()
    await second.disconnect()


async def test_sync_sends_a_snapshot_to_the_sender_only(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    await settle(first, second, online=2)
    await send(first, action="sync")
    assert 'id="board"' in await first.receive_from()
    assert await before_echo(second, hover=True) == []
    await first.disconnect()
    await second.disconnect()


async def test_hover_outlines_reach_the_others(room, ana, bo):
    first, second = await connect(room, ana), await connect(room, bo)
    await send(first, action="hover", x=3, y=5)
    cursor = await receive_until(second, 'id="cursor-feed"')
    assert 'data-x="3"' in cursor and 'data-y="5"' in cursor and 'data-name="Ana"' in cursor
    await first.disconnect()
    await second.disconnect()


async def test_roster_shows_who_is_online(room, ana, bo):
    first = await connect(room, ana)
    second = await connect(room, bo)
    roster = await receive_until(first, 'data-seat="1" data-online="true"')
    assert "Bo" in roster and 'data-seat="0" data-online="true"' in roster
    await second.disconnect()
    roster = await receive_until(first, 'data-seat="1" data-online="false"')
    assert "Bo" in roster
    await first.disconnect()


async def test_unknown_room_closes_the_socket_with_4404_after_the_handshake():
    """Accepted, then closed with 4404: a handshake refused before it reaches a browser as 1006,
    which pages retry for ever, where 4404 tells them to stop (tests/e2e/test_reliability.py)."""
    communicator = WebsocketCommunicator(
        application, "/ws/r/not-a-room/", headers=[(b"origin", b"http://127.0.0.1:8000")]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}


async def test_a_missing_origin_is_refused(room):
    communicator = WebsocketCommunicator(application, f"/ws/r/{room.code}/")
    connected, _ = await communicator.connect()
    assert not connected


async def test_a_foreign_origin_is_refused(room):
    communicator = WebsocketCommunicator(
        application, f"/ws/r/{room.code}/", headers=[(b"origin", b"https://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_a_won_coop_game_tells_everyone_the_players_won_not_you_win(room, ana):
    """Issue 35: a spectator read "You win!" when the players cleared the board."""
    await database_sync_to_async(
        lambda: Game.objects.filter(room=room).update(state=fifty_fifty())
    )()
    player, watcher = await connect(room, ana), await connect(room, watch=True)
    await send(player, action="reveal", x=2, y=1)
    for socket in (player, watcher):
        message = await receive_until(socket, "cleared the board")
        assert "Ana cleared the board. The players won!" in message
        assert "You win" not in message
    for socket in (player, watcher):
        await socket.disconnect()
