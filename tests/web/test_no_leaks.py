"""The server is the only authority: nothing sent before a game ends tells where a mine is.

Whole games are played through the websocket while a spectator records every message; the room
page and the API's board are fetched along the way. Once the game is over the mines are read from
the database and every earlier byte is checked against them.
"""

import random
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games.engine import minesweeper as engine
from games.rooms import joining
from games.store.models import Game

from .helpers import cell_states, connect, make_room, receive_until, send

pytestmark = pytest.mark.django_db(transaction=True)

HIDDEN_LOOKS = {"hidden", "flagged"}


def opens(state: engine.GameState, cell: int, target: int) -> bool:
    """Whether revealing `cell` would open `target` too (by its cascade)."""
    width = state.config.width
    after, _ = engine.apply_move(
        state, engine.Move(engine.Action.REVEAL, cell % width, cell // width, 0)
    )
    return target in after.revealed


def game_state(room) -> engine.GameState:
    return engine.from_dict(Game.objects.filter(room=room).order_by("-number").first().state)


def snapshot_of_public_views(room, client: Client) -> list[str]:
    """The room page, the watch page and the API board, as a browser or bot would get them."""
    return [
        client.get(f"/r/{room.code}/").content.decode(),
        client.get(f"/r/{room.code}/watch/").content.decode(),
        client.get(f"/api/rooms/{room.code}").content.decode(),
    ]


def assert_no_mine_shown(texts: list[str], mines: frozenset[int], width: int) -> None:
    for text in texts:
        assert 'data-state="mine"' not in text and 'data-state="exploded"' not in text
        assert '"field":' not in text and '"seed":' not in text
        for (x, y), look in cell_states(text).items():
            if y * width + x in mines:
                assert look in HIDDEN_LOOKS, f"mine at ({x}, {y}) shown as {look}"
        for row in re.findall(r'"board":\s*\[([^\]]*)\]', text):
            assert "*" not in row and "!" not in row


@pytest.mark.parametrize("outcome", ["won", "lost"])
async def test_no_message_or_page_reveals_a_mine_before_the_end(outcome):
    room = await sync_to_async(make_room)(9, 9, 10)
    ana = await sync_to_async(joining.join_room)(room, "Ana")
    bo = await sync_to_async(joining.join_room)(room, "Bo")
    players = [await connect(room, ana), await connect(room, bo)]
    spectator = await connect(room, watch=True)
    client = Client()
    await sync_to_async(client.post)(f"/r/{room.code}/join/", {"nickname": "Cy"})
    rng = random.Random(outcome)
    seen: list[str] = []

    await send(players[0], action="reveal", x=4, y=4)
    seen.append(await receive_until(spectator, 'id="game-meta"'))
    state = await sync_to_async(game_state)(room)
    mines = state.field.mines
    safe = [c for c in range(81) if c not in mines and c not in state.revealed]
    rng.shuffle(safe)
    # Winning clears every safe cell; losing plays a few safe cells, flags a safe one they left
    # hidden (a reveal whose cascade would open it is skipped), then hits a mine.
    plan = safe if outcome == "won" else safe[:5]
    hidden_safe = safe[-1]
    for turn, cell in enumerate(plan):
        now = await sync_to_async(game_state)(room)
        if cell in now.revealed:
            continue  # opened by an earlier cascade
        if outcome == "lost" and opens(now, cell, hidden_safe):
            continue
        await send(players[turn % 2], action="reveal", x=cell % 9, y=cell // 9)
        seen.append(await receive_until(spectator, 'id="game-meta"'))
        if turn % 4 == 0:
            seen.extend(await sync_to_async(snapshot_of_public_views)(room, client))
            await send(players[1], action="flag", x=cell % 9, y=cell // 9)  # open: a no-op
            await send(players[0], action="hover", x=cell % 9, y=cell // 9)
    if outcome == "lost":
        assert hidden_safe not in (await sync_to_async(game_state)(room)).revealed
        await send(players[1], action="flag", x=hidden_safe % 9, y=hidden_safe // 9)
        seen.append(await receive_until(spectator, 'data-state="flagged"'))
        mine = min(mines)
        await send(players[0], action="reveal", x=mine % 9, y=mine // 9)
    ended = f'data-status="{outcome}"'
    # The winning reveal may be followed by page and API snapshots in `seen`: find its message.
    moves = (m for m in reversed(seen) if ended in m and m.startswith('<div id="game-meta"'))
    final = next(moves, None) or await receive_until(spectator, ended)
    seen_before_end = [m for m in seen if f'data-status="{outcome}"' not in m]

    assert (await sync_to_async(game_state)(room)).status.value == outcome
    assert_no_mine_shown(seen_before_end, mines, 9)
    looks = cell_states(final)
    if outcome == "lost":
        assert looks[(min(mines) % 9, min(mines) // 9)] == "exploded"
        assert looks[(hidden_safe % 9, hidden_safe // 9)] == "wrong-flag"
        assert sum(look == "mine" for look in looks.values()) == len(mines) - 1
    else:
        assert {(c % 9, c // 9) for c in mines} <= {
            xy for xy, look in looks.items() if look == "flagged"
        }
    for socket in (*players, spectator):
        await socket.disconnect()
