"""Minesweeper moves that change nothing: refused with a reason where they could never change
their cell (409 in the API, the same error on the sender's socket), let through quietly where
they are what a click on the board sends."""

import pytest
from asgiref.sync import sync_to_async

from games.engine import ascii
from games.engine import minesweeper as engine
from games.kinds.minesweeper import rules
from games.kinds.table import Refused
from games.protocol.messages import CellMove
from games.rooms import dispatch
from games.store.models import Game, Move

from .helpers import before_echo, connect, receive_until, send, settle

# Mines at (3, 0) and (3, 1), the second flagged; (4, 0) and (4, 1) are covered and safe.
BOARD = """
__2*#
__2F#
__111
"""


def board() -> dict:
    return engine.to_dict(ascii.parse(BOARD))


@pytest.mark.parametrize(
    ("action", "x", "y", "reason"),
    [
        ("flag", 0, 0, "That cell is already revealed: only hidden cells can be flagged."),
        ("flag", 2, 0, "That cell is already revealed: only hidden cells can be flagged."),
        ("reveal", 3, 1, "That cell is flagged: take the flag off before revealing it."),
        ("chord", 4, 0, "Only a revealed number can be chorded: that cell is still covered."),
        ("chord", 3, 1, "Only a revealed number can be chorded: that cell is still covered."),
        ("chord", 0, 0, "That cell has no mines around it: there is nothing to chord."),
        ("chord", 2, 0, "That 2 has 1 flag around it: a chord needs exactly 2."),
    ],
)
def test_a_move_that_could_never_change_its_cell_is_refused_with_the_reason(action, x, y, reason):
    with pytest.raises(Refused) as refused:
        rules.apply(board(), CellMove(action, x, y), 0)
    assert str(refused.value) == reason


@pytest.mark.parametrize(
    ("action", "x", "y"),
    [
        ("reveal", 0, 0),  # a click in the opened area
        ("reveal", 2, 0),  # a click on a number whose flags do not match yet
        ("chord", 2, 2),  # flags match and every neighbour is open or flagged: done already
    ],
)
def test_a_click_that_happens_to_change_nothing_passes_quietly(action, x, y):
    applied = rules.apply(board(), CellMove(action, x, y), 0)
    assert applied.events == () and applied.state == board()


def test_moves_that_change_their_cell_still_work():
    assert rules.apply(board(), CellMove("chord", 3, 2), 0).changed  # opens (4, 1)
    assert rules.apply(board(), CellMove("flag", 3, 1), 0).changed  # the flag comes off
    assert rules.apply(board(), CellMove("flag", 4, 0), 0).changed


def test_a_finished_game_still_says_it_is_over():
    lost = rules.apply(board(), CellMove("reveal", 3, 0), 0).state
    with pytest.raises(Refused, match="The game is over"):
        rules.apply(lost, CellMove("flag", 0, 0), 0)


def move(client, code, token, **body):
    headers = {"Authorization": f"Bearer {token}"}
    return client.post(
        f"/api/rooms/{code}/moves", body, content_type="application/json", headers=headers
    )


@pytest.mark.django_db
def test_the_api_answers_409_with_the_reason_and_logs_nothing(client):
    created = client.post(
        "/api/rooms", {"preset": "beginner", "name": "Robo"}, content_type="application/json"
    ).json()
    code, token = created["code"], created["player_token"]
    assert move(client, code, token, action="reveal", x=4, y=4).status_code == 200
    answer = move(client, code, token, action="flag", x=4, y=4)
    assert answer.status_code == 409
    assert answer.json() == {
        "error": "That cell is already revealed: only hidden cells can be flagged."
    }
    quiet = move(client, code, token, action="reveal", x=4, y=4)  # opened: passes, as a click
    assert quiet.status_code == 200 and quiet.json()["changed"] == []
    game = Game.objects.get(room__code=code)
    assert game.version == 1 and Move.objects.filter(game=game).count() == 1


@pytest.mark.django_db(transaction=True)
async def test_the_socket_sends_the_same_reason_to_the_sender_alone(room, ana, bo):
    await sync_to_async(dispatch.play)(room, ana, CellMove("reveal", 4, 4))
    sender, other = await connect(room, ana), await connect(room, bo)
    await settle(sender, other, online=2)
    await send(sender, action="flag", x=4, y=4)
    error = await receive_until(sender, 'id="room-error"')
    assert "That cell is already revealed: only hidden cells can be flagged." in error
    assert await before_echo(other) == []
    assert await Game.objects.filter(room=room).values_list("version", flat=True).aget() == 1
    await sender.disconnect()
    await other.disconnect()
