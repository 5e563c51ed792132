"""A long game looked at in pieces (issue 26, item 6): the replay page carries one chunk of the
timeline and the others come from their own address, cached per version; the API's game view
lists the moves a page at a time. Through the real pages, API and move log."""

import json

import pytest
from django.test import Client

from games.engine import minesweeper as engine
from games.protocol.messages import CellMove
from games.rooms import dispatch
from games.store.models import Game, Move, Room
from games.web import history, replays

from .test_replays import replay_data

pytestmark = pytest.mark.django_db

CHUNK = replays.CHUNK


@pytest.fixture(autouse=True)
def fresh_timelines():
    history.forget_timelines()  # ids come again in a flushed database
    yield
    history.forget_timelines()


def long_game(room: Room, player, moves: int) -> tuple[int, int]:
    """`moves` moves logged: a reveal through the service, then flag toggles on one covered cell
    written as the service writes its log rows (playing each through the service would take
    minutes). An odd count leaves the flag off, so the game row's state is the log's."""
    assert moves % 2 == 1
    dispatch.play(room, player, CellMove("reveal", 4, 4))
    game = room.current_game()
    state = engine.from_dict(game.state)
    assert game.status == "playing"
    x, y = state.grid.xy(next(c for c in range(state.grid.size) if c not in state.revealed))
    Move.objects.bulk_create(
        Move(game=game, seq=seq, seat=player.number, action="flag", x=x, y=y)
        for seq in range(2, moves + 1)
    )
    Game.objects.filter(pk=game.pk).update(version=moves)
    return x, y


def add_move(room: Room, player, cell: tuple[int, int]) -> None:
    """One more flag toggle, through the service as a player makes it."""
    dispatch.play(room, player, CellMove("flag", *cell))


def chunk_url(room: Room, first: int) -> str:
    return f"/r/{room.code}/games/1/chunks/{first}/"


def test_the_page_carries_one_chunk_and_the_others_rebuild_every_position(
    client: Client, room, ana
):
    moves = 2 * CHUNK + 101
    long_game(room, ana, moves)
    timeline = history.timeline_of(room, room.current_game())
    assert timeline is not None and timeline.moves == moves

    html = client.get(f"/r/{room.code}/games/1/").content.decode()
    data = replay_data(html)
    assert data["k"] == data["moves"] == moves and data["first"] == 2 * CHUNK
    assert len(data["steps"]) == 101 and data["chunk"] == CHUNK
    # The list: Start and the chunk's moves, the last one current.
    assert html.count('<button type="button" data-k=') == 1 + 101
    assert f'data-k="{moves}" aria-current="step"' in html
    assert len(html) < 150_000, len(html)
    note = f"Moves {2 * CHUNK + 1}–{moves} of {moves}; the list follows the board."
    assert f'id="replay-chunk-note" aria-live="polite">{note}</p>' in html

    chunks = {data["first"]: data}
    for first in (0, CHUNK):
        response = client.get(data["chunk_url"] + f"{first}/")
        assert response.status_code == 200 and response["Content-Type"] == "application/json"
        chunks[first] = response.json()
        assert len(chunks[first]["steps"]) == CHUNK
        assert chunks[first]["entries"].count("data-k=") == CHUNK
        assert f'data-k="{first + 1}"' in chunks[first]["entries"]
    for first, chunk in chunks.items():
        board = list(chunk["board"])
        assert chunk["board"] == timeline.board_at(first)
        for i, (_at, seat, _target, cells, chars) in enumerate(chunk["steps"], start=1):
            for cell, char in zip(cells, chars, strict=True):
                board[cell] = char
            assert "".join(board) == timeline.board_at(first + i)
            assert seat == ana.number
        # A game under way: never a mine, in any chunk.
        assert not set(chunk["board"]) & set("*!X")
        assert not any(set(step[4]) & set("*!X") for step in chunk["steps"])


def test_a_shared_link_into_an_early_chunk_opens_there(client: Client, room, ana):
    long_game(room, ana, CHUNK + 11)
    html = client.get(f"/r/{room.code}/games/1/?move={CHUNK}").content.decode()
    data = replay_data(html)
    # Position CHUNK shows move CHUNK itself (its time, its outline): the first chunk's last.
    assert data["k"] == CHUNK and data["first"] == 0 and len(data["steps"]) == CHUNK
    assert f'data-k="{CHUNK}" aria-current="step"' in html
    data = replay_data(client.get(f"/r/{room.code}/games/1/?move=0").content.decode())
    assert data["k"] == 0 and data["first"] == 0


def test_chunks_are_checked_by_their_etag_and_a_finished_games_kept(client: Client, room, ana):
    cell = long_game(room, ana, CHUNK + 3)
    full = client.get(chunk_url(room, 0))
    growing = client.get(chunk_url(room, CHUNK))
    assert full["Cache-Control"] == growing["Cache-Control"] == "no-cache"
    assert len(growing.json()["steps"]) == 3
    for response in (full, growing):
        again = client.get(response.wsgi_request.path, headers={"If-None-Match": response["ETag"]})
        assert again.status_code == 304 and again.content == b""
    assert str(room.current_game().seed) not in full["ETag"] + growing["ETag"]

    add_move(room, ana, cell)
    after = client.get(chunk_url(room, CHUNK), headers={"If-None-Match": growing["ETag"]})
    assert after.status_code == 200 and len(after.json()["steps"]) == 4
    assert after["ETag"] != growing["ETag"]
    same = client.get(chunk_url(room, 0), headers={"If-None-Match": full["ETag"]})
    assert same.status_code == 304  # a full chunk: the move changed nothing in it

    state = engine.from_dict(room.current_game().state)
    assert state.field is not None
    mine = next(m for m in sorted(state.field.mines) if state.grid.xy(m) != cell)  # not flagged
    dispatch.play(room, ana, CellMove("reveal", *state.grid.xy(mine)))
    assert room.current_game().status == "lost"
    ended = client.get(chunk_url(room, 0), headers={"If-None-Match": full["ETag"]})
    assert ended.status_code == 200 and ended["ETag"] != full["ETag"]
    assert ended["Cache-Control"] == f"max-age={replays.FULL_CHUNK_SECONDS}"
    last = client.get(chunk_url(room, CHUNK)).json()
    assert len(last["steps"]) == 5 and set(last["steps"][-1][4]) & set("*!")


def test_a_chunk_outside_the_game_is_a_clear_error(client: Client, room, ana):
    long_game(room, ana, CHUNK + 3)
    for first in (1, CHUNK - 1, 2 * CHUNK):
        response = client.get(chunk_url(room, first))
        assert response.status_code == 400
        assert response.json() == {
            "error": f"first must be a multiple of {CHUNK} from 0 to {CHUNK}, not {first}."
        }
    missing = client.get(f"/r/{room.code}/games/9/chunks/0/")
    assert missing.status_code == 404 and missing.json() == {"error": "No such game."}
    assert client.get(chunk_url(room, 0)).status_code == 200  # nothing broken by them


def test_the_api_lists_a_long_games_moves_a_page_at_a_time(client: Client, room, ana):
    moves = history.MOVES_PER_PAGE + 21
    long_game(room, ana, moves)
    url = f"/api/rooms/{room.code}/games/1"
    first = client.get(url).json()
    assert [m["seq"] for m in first["moves"]] == list(range(1, history.MOVES_PER_PAGE + 1))
    assert first["next"] == f"{url}?after={history.MOVES_PER_PAGE}"
    rest = client.get(first["next"]).json()
    assert [m["seq"] for m in rest["moves"]] == list(range(history.MOVES_PER_PAGE + 1, moves + 1))
    assert rest["next"] is None
    assert rest["board"] == first["board"] and rest["version"] == moves

    seen, link = [], f"{url}?limit=200"
    while link:
        page = client.get(link).json()
        assert len(page["moves"]) <= 200
        seen += page["moves"]
        link = page["next"]
    assert seen == first["moves"] + rest["moves"]


def test_a_short_games_api_view_is_as_before_with_no_next(client: Client, room, ana):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    answer = client.get(f"/api/rooms/{room.code}/games/1").json()
    assert [m["seq"] for m in answer["moves"]] == [1] and answer["next"] is None


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("limit=0", "query.limit: Input should be greater than or equal to 1"),
        (
            f"limit={history.MOVES_PER_PAGE + 1}",
            f"query.limit: Input should be less than or equal to {history.MOVES_PER_PAGE}",
        ),
        ("after=-1", "query.after: Input should be greater than or equal to 0"),
        (
            "after=x",
            "query.after: Input should be a valid integer, unable to parse string as an integer",
        ),
    ],
)
def test_a_page_of_moves_out_of_bounds_is_a_clear_error(client: Client, room, ana, query, error):
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    response = client.get(f"/api/rooms/{room.code}/games/1?{query}")
    assert response.status_code == 400
    assert json.loads(response.content) == {"error": error}


def test_an_address_replaying_too_many_games_from_their_log_is_told_to_wait(room, ana, settings):
    """Each game replayed from its whole log costs time that grows with the game: counted per
    address and minute, whether the page, a chunk or the API asks. From addresses of this test
    alone (in CI the counters are shared by the whole run)."""
    settings.REPLAY_BUILDS_PER_MINUTE = 2
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    client = Client(REMOTE_ADDR="198.51.100.26")
    page, api = f"/r/{room.code}/games/1/", f"/api/rooms/{room.code}/games/1"
    for url in (page, chunk_url(room, 0)):
        history.forget_timelines()
        assert client.get(url).status_code == 200
    assert client.get(page).status_code == 200  # kept now: not counted

    history.forget_timelines()
    refused = client.get(page)
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    assert "Too many games opened from your address: try again in" in refused.content.decode()
    refused = client.get(chunk_url(room, 0))
    assert refused.status_code == 429
    assert refused.json()["error"].startswith("Too many games opened from your address")
    refused = client.get(api)
    assert refused.status_code == 429 and "Retry-After" in refused
    assert refused.json()["error"].startswith("Too many games opened from your address")

    other = Client(REMOTE_ADDR="198.51.100.27")
    assert other.get(page).status_code == 200  # another address builds it, the process keeps it
    assert client.get(page).status_code == 200 and client.get(api).status_code == 200
