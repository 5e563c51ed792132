"""Pages behind a long log (issue 33, item 4): the watch page, the invite page and the link
preview's picture after a move read that move at most, never the game's whole log, whatever
the kind (a race of 6,868 moves cost 190-217 ms of CPU a view)."""

import time
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.engine import race as race_engine
from games.engine.minesweeper import CellState
from games.kinds.race import rules as race_rules
from games.protocol.messages import CellMove, Command
from games.rooms import dispatch, joining, playing
from games.store.models import Player, Room
from games.web import history, previews

from .helpers import hidden_cells, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh():
    history.forget_timelines()  # ids come again in a flushed database
    previews.forget_pictures()
    yield
    history.forget_timelines()
    previews.forget_pictures()


def log_reads(room: Room) -> list[str]:
    """The queries of the move log that a spectator's watch page, a stranger's invite page and
    the room's picture make (each from a browser of its own)."""
    game = room.current_game()
    urls = (
        f"/r/{room.code}/watch/",
        f"/r/{room.code}/",
        f"/r/{room.code}/preview.png?v={game.number}.{game.version}",
    )
    with CaptureQueriesContext(connection) as queries:
        for url in urls:
            assert Client().get(url).status_code == 200, url
    return [q["sql"] for q in queries.captured_queries if 'FROM "games_move"' in q["sql"]]


def racing(settings) -> tuple[Room, list[Player]]:
    """A beginner race of Ana and Bo past Go."""
    settings.RACE_COUNTDOWN_SECONDS = 0
    room, _ = joining.open_room(
        "race", race_rules.validate_settings(9, 9, 10, False), "Ana", is_public=True
    )
    joining.join_room(room, "Bo")
    ana, bo = room.players.order_by("number")
    dispatch.play(room, ana, Command("start"))
    assert playing.tick(room) is not None
    assert race_rules.load(room.current_game().state).phase is race_engine.Phase.RACING
    return room, [ana, bo]


def toggle_a_flag(room: Room, player: Player) -> None:
    """A flag on (or off) a covered cell of the player's board."""
    if room.kind == "race":
        racer = race_rules.load(room.current_game().state).racer(player.number)
        assert racer is not None
        covered = next(c for c in range(81) if racer.cell_state(c)[0] is not CellState.REVEALED)
        x, y = covered % 9, covered // 9
    else:
        x, y = hidden_cells(room)[0]
    dispatch.play(room, player, CellMove("flag", x, y))


def test_no_page_of_a_race_under_way_reads_its_log(settings):
    room, players = racing(settings)
    for turn in range(6):
        toggle_a_flag(room, players[turn % 2])
    assert room.current_game().moves.count() == 8  # the start, Go and six flags
    assert log_reads(room) == []  # not even the first view since the race started
    toggle_a_flag(room, players[0])
    assert log_reads(room) == []


def test_pages_of_a_co_op_game_after_a_move_read_that_move_only():
    room = make_room(9, 9, 10)
    ana = joining.join_room(room, "Ana")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    for _ in range(5):
        toggle_a_flag(room, ana)
    log_reads(room)  # this process's first look: the whole log once
    toggle_a_flag(room, ana)
    assert room.current_game().version == 7
    read = log_reads(room)
    assert read and all('"seq" > 6' in sql for sql in read), read


def a_fresh_address() -> str:
    """An address no earlier test has counted against this minute (Redis keeps counts in CI)."""
    return f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"


def test_link_tags_that_would_replay_a_log_count_as_a_build_and_are_left_out_past_it(settings):
    """A page whose link preview would replay a game no process keeps costs one of the address's
    `REPLAY_BUILDS_PER_MINUTE`; past them the page is served without its tags."""
    settings.REPLAY_BUILDS_PER_MINUTE = 1
    rooms = [make_room(9, 9, 10) for _ in range(2)]
    for room in rooms:
        dispatch.play(room, joining.join_room(room, "Ana"), CellMove("reveal", 4, 4))
    client = Client(REMOTE_ADDR=a_fresh_address())
    history.forget_timelines()
    assert "og:title" in client.get(f"/r/{rooms[0].code}/watch/").content.decode()
    refused = client.get(f"/r/{rooms[1].code}/watch/")
    assert refused.status_code == 200 and "og:title" not in refused.content.decode()
    assert not history.costly(rooms[0], rooms[0].current_game())
    kept = client.get(f"/r/{rooms[0].code}/watch/")  # kept: no build, not counted
    assert "og:title" in kept.content.decode()
    other = Client(REMOTE_ADDR=a_fresh_address())
    assert "og:title" in other.get(f"/r/{rooms[1].code}/watch/").content.decode()


def test_a_kept_picture_replays_nothing_and_one_to_draw_counts_its_replay(settings, monkeypatch):
    """The picture's timeline is made inside the drawing's count: a kept picture reads no log,
    and an address past `PREVIEWS_PER_MINUTE` makes the server replay nothing."""
    settings.PREVIEWS_PER_MINUTE = 1
    minute = (time.time() // 60) * 60 + 30  # the count is per clock minute: stay inside one
    monkeypatch.setattr(previews, "now", lambda: minute)
    rooms = [make_room(9, 9, 10) for _ in range(2)]
    for room in rooms:
        dispatch.play(room, joining.join_room(room, "Ana"), CellMove("reveal", 4, 4))
    client = Client(REMOTE_ADDR=a_fresh_address())
    assert client.get(f"/r/{rooms[0].code}/preview.png").status_code == 200
    history.forget_timelines()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/r/{rooms[0].code}/preview.png").status_code == 200  # kept
        assert client.get(f"/r/{rooms[1].code}/preview.png").status_code == 429
    assert not [q for q in queries.captured_queries if 'FROM "games_move"' in q["sql"]]
    assert history.costly(rooms[0], rooms[0].current_game())  # nothing was replayed
