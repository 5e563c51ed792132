"""Flags through the JSON API: create, read (the seat's `you`, whose turn, the scores), moves,
the errors a bot gets (409 out of turn, a refused bomb, an open cell; 400 off the board)."""

import time

import pytest

from games.engine import flags as engine
from games.store.models import Game, Room

from .flags_helpers import board, current, mines, safe

pytestmark = pytest.mark.django_db


def create(client, **body):
    return client.post("/api/rooms", {"game": "flags", **body}, content_type="application/json")


def join(client, code, name):
    return client.post(f"/api/rooms/{code}/join", {"name": name}, content_type="application/json")


def move(client, code, token, **body):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(
        f"/api/rooms/{code}/moves", body, content_type="application/json", headers=headers
    )


def read(client, code, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/rooms/{code}", headers=headers).json()


@pytest.fixture
def pvp(client):
    """A person-against-person room: Ana (X) made it, Bo (O) joined; (code, ana, bo, room)."""
    created = create(client, x="human", o="human", name="Ana").json()
    bo = join(client, created["code"], "Bo").json()["player_token"]
    room = Room.objects.get(code=created["code"])
    return created["code"], created["player_token"], bo, room


def test_create_and_read_a_flags_room(client, pvp):
    code, ana, bo, room = pvp
    state = read(client, code, ana)
    assert state["game"] == "flags"
    assert state["board"] == ["#" * 16] * 16
    assert (state["width"], state["height"], state["mines"], state["to_win"]) == (16, 16, 51, 26)
    assert state["turn"] == "X" and state["you"] == "X"
    assert state["scores"] == {"X": 0, "O": 0}
    assert state["bombs"] == {"X": True, "O": True}
    assert state["winner"] is None
    assert read(client, code, bo)["you"] == "O"
    assert read(client, code)["you"] is None
    assert "mines_left" not in state


def test_other_odd_mine_counts_and_bad_ones(client):
    assert create(client, x="human", o="easy", mines=11).status_code == 201
    assert read(client, Room.objects.get().code)["mines"] == 11
    for body, message in [
        ({"mines": 50}, "Mines must be an odd number from 1 to 99"),
        ({"x": "perfect"}, "X must be one of human, easy, strong"),
        ({"o": "wizard"}, "O must be one of human, easy, strong, got 'wizard'"),
        ({"turn_seconds": 7}, "turn timer must be one of 0, 15, 30, 60"),
    ]:
        response = create(client, **body)
        assert response.status_code == 400, body
        assert message in response.json()["error"]
    assert Room.objects.count() == 1


def test_moves_claims_and_the_board_rows(client, pvp):
    code, ana, bo, room = pvp
    mine = mines(room)[0]
    answer = move(client, code, ana, action="reveal", x=mine[0], y=mine[1])
    assert answer.status_code == 200
    assert answer.json()["changed"] == [
        {"x": mine[0], "y": mine[1], "state": "claimed", "seat": "X"}
    ]
    state = read(client, code)
    assert state["board"][mine[1]][mine[0]] == "x"
    assert state["turn"] == "X" and state["scores"] == {"X": 1, "O": 0}
    at = safe(room)
    answer = move(client, code, ana, action="reveal", x=at[0], y=at[1]).json()
    count = board(room).field.counts[board(room).grid.index(*at)]
    assert answer["changed"] == [{"x": at[0], "y": at[1], "state": "revealed", "count": count}]
    assert read(client, code)["board"][at[1]][at[0]] == str(count)
    assert read(client, code)["turn"] == "O"


def test_the_errors_a_bot_gets(client, pvp):
    code, ana, bo, room = pvp
    at = safe(room)
    out_of_turn = move(client, code, bo, action="reveal", x=at[0], y=at[1])
    assert out_of_turn.status_code == 409
    assert out_of_turn.json() == {"error": "It is not your turn: X is to move."}
    not_behind = move(client, code, ana, action="bomb", x=8, y=8)
    assert not_behind.status_code == 409
    assert "only for the player behind" in not_behind.json()["error"]
    off = move(client, code, ana, action="reveal", x=3, y=16)
    assert off.status_code == 400
    assert "off the board" in off.json()["error"]
    assert move(client, code, ana, action="flag", x=0, y=0).status_code == 400
    move(client, code, ana, action="reveal", x=at[0], y=at[1])
    again = move(client, code, bo, action="reveal", x=at[0], y=at[1])
    assert again.status_code == 409 and "already open" in again.json()["error"]
    cy = join(client, code, "Cy").json()["player_token"]
    third = move(client, code, cy, action="reveal", x=0, y=0)
    assert third.status_code == 409 and "no seat" in third.json()["error"]
    assert move(client, code, "nope", action="reveal", x=0, y=0).status_code == 403
    assert move(client, code, None, action="reveal", x=0, y=0).status_code == 401
    assert current(room).version == 1


def test_the_bomb_through_the_api(client, pvp):
    code, ana, bo, room = pvp
    first = mines(room)[0]
    move(client, code, ana, action="reveal", x=first[0], y=first[1])
    at = safe(room)
    move(client, code, ana, action="reveal", x=at[0], y=at[1])
    target = mines(room)[0]
    answer = move(client, code, bo, action="bomb", x=target[0], y=target[1])
    assert answer.status_code == 200
    claimed = [c for c in answer.json()["changed"] if c["state"] == "claimed"]
    assert claimed and all(c["seat"] == "O" for c in claimed)
    state = read(client, code, bo)
    assert state["bombs"] == {"X": True, "O": False}
    assert state["scores"]["O"] == len(claimed)


def test_against_the_computer_its_replies_come_with_the_answer(client):
    created = create(client, x="human", o="easy", name="Ana").json()
    room = Room.objects.get(code=created["code"])
    at = safe(room)
    answer = move(
        client, created["code"], created["player_token"], action="reveal", x=at[0], y=at[1]
    )
    assert answer.status_code == 200
    changed = answer.json()["changed"]
    assert changed[0]["x"] == at[0] and changed[0]["y"] == at[1]
    assert len(changed) > 1  # the computer's cells follow ours
    state = read(client, created["code"], created["player_token"])
    assert state["turn"] == "X" or state["status"] == "won"
    assert Game.objects.get(room=room).version == answer.json()["version"] > 1


def test_two_computers_need_no_seat(client):
    created = create(client, x="easy", o="strong").json()
    assert created["player_token"] is None
    room = Room.objects.get(code=created["code"])
    state = board(room)
    assert state.status is engine.Status.WON or len(state.revealed) + len(state.claimed) > 0


def test_a_timed_room_says_when_the_turn_passes(client):
    created = create(client, x="human", o="human", turn_seconds=30, name="Ana").json()
    code, ana = created["code"], created["player_token"]
    state = read(client, code)
    assert (state["turn_seconds"], state["turn_deadline"]) == (30, None)  # not before a move
    room = Room.objects.get(code=code)
    at = mines(room)[0]
    before = time.time()
    move(client, code, ana, action="reveal", x=at[0], y=at[1])
    deadline = read(client, code)["turn_deadline"]
    assert before + 30 <= deadline <= time.time() + 30


def test_each_logged_move_of_two_computers_names_its_side_as_the_statistics_do(client):
    """The rows log both computers as one seat (2147483647); the API credits each move to its
    side's computer, as `stats.players` counts them."""
    created = create(client, x="easy", o="strong").json()
    game = client.get(f"/api/rooms/{created['code']}/games/1").json()
    moves = [m for m in game["moves"] if m["action"] in ("reveal", "bomb")]
    assert {m["side"] for m in moves} == {"X", "O"}
    assert {(m["seat"], m["side"]) for m in moves} == {(2147483645, "X"), (2147483646, "O")}
    counted = {p["seat"]: p["moves"] for p in game["stats"]["players"]}
    assert counted == {
        seat: sum(m["seat"] == seat for m in moves) for seat in (2147483645, 2147483646)
    }
