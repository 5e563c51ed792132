"""Replays, statistics, the room's history and the records (issue 16), through the real pages,
the API and the service that plays moves."""

import re
from dataclasses import replace

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import minesweeper as engine
from games.kinds import kind_of
from games.kinds.tictactoe import rules as tictactoe
from games.protocol.messages import CellMove, SquareMove
from games.rooms import computers, dispatch, joining, playing
from games.store.models import Game, GameSummary, Move
from games.web import history
from tests.helpers.replays import lose, mines, play, replay_data, safe_cells, state_of, win
from tests.helpers.web import make_room, records_html, table

pytestmark = pytest.mark.django_db

HIDDEN_MINE = re.compile(r'data-state="(mine|exploded|wrong-flag)"')


@pytest.fixture(autouse=True)
def fresh_timelines():
    history.forget_timelines()  # ids come again in a flushed database
    yield
    history.forget_timelines()


def test_the_end_banner_of_a_won_game_shows_its_statistics_and_the_replay_link(room, ana, bo):
    win(room, ana, bo)
    game = room.current_game()
    html = kind_of("minesweeper").rendering.snapshot_html(room, game)
    banner = html[html.index('id="banner"') :]
    for label in ("Time", "3BV", "3BV/s", "Clicks", "IOE"):
        assert f"<dt>{label}</dt>" in banner or f">{label}</abbr></dt>" in banner
    assert re.search(r'class="banner-time">\d+\.\d\d s<', banner)
    assert "Ana" in banner and "Bo" in banner
    assert f'href="/r/{room.code}/games/{game.number}/"' in banner


def test_the_move_that_ends_a_game_carries_the_banner_with_statistics(room, ana):
    """The last move's fragment (the one everyone receives) is rendered after the commit from
    what `gather` read: it shows the figures without a query of its own."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.kinds.minesweeper import render
    from games.kinds.table import Applied, MoveNews

    lose(room, ana)
    game = room.current_game()
    ended = Applied(game.state, game.status, (), {}, board=state_of(room))
    facts = render.gather(room, game, ended)
    with CaptureQueriesContext(connection) as queries:
        html = render.move_html(MoveNews(room, game, ended, ana, facts))
    assert len(queries) == 0
    assert "<dt>Clicks</dt>" in html and "Watch the replay" in html


def test_a_replay_opens_at_the_move_of_a_share_link(client: Client, room, ana, bo):
    win(room, ana, bo)
    game = room.current_game()
    timeline = history.timeline_of(room, game)
    assert timeline is not None
    response = client.get(f"/r/{room.code}/games/{game.number}/?move=1")
    assert response.status_code == 200
    html = response.content.decode()
    board = timeline.board_at(1)
    for cell, char in enumerate(board):
        x, y = cell % timeline.width, cell // timeline.width
        state = timeline.legend[char]["data-state"]
        assert re.search(rf'id="cell-{x}-{y}" data-state="{state}"', html)
    data = replay_data(html)
    assert data["k"] == 1 and len(data["steps"]) == timeline.moves == game.version
    assert sorted(data["mines"]) == sorted(x + 9 * y for x, y in mines(room))
    # The first move is outlined in its player's colour.
    assert re.search(rf'id="cell-4-4"[^>]*data-outline="{ana.colour}"', html)


def test_a_move_that_is_no_whole_number_is_a_clear_error(client: Client, room, ana):
    play(room, ana, "reveal", 4, 4)
    game = room.current_game()
    for bad in ("abc", "1.5", "1e3", "9" * 40):
        response = client.get(f"/r/{room.code}/games/{game.number}/?move={bad}")
        assert response.status_code == 400
        assert "move must be a whole number from 0 to 1" in response.content.decode()


def test_a_move_past_either_end_opens_at_that_end(client: Client, room, ana):
    """Issue 35: `?move=999` answered 400; it opens at the last move (and -1 at the start)."""
    play(room, ana, "reveal", 4, 4)
    game = room.current_game()
    for asked, k in (("999", 1), ("2", 1), ("-1", 0)):
        response = client.get(f"/r/{room.code}/games/{game.number}/?move={asked}")
        assert response.status_code == 200
        assert replay_data(response.content.decode())["k"] == k
        assert f"?move={k}" in response.content.decode()  # the share link names the real move
    assert client.get(f"/r/{room.code}/games/7/").status_code == 404
    assert client.get("/r/nope/games/1/").status_code == 404


def test_rewinding_a_game_in_progress_never_shows_a_hidden_mine(client: Client, room, ana, bo):
    play(room, ana, "reveal", 4, 4)
    wrong = next(
        cell
        for cell in safe_cells(room)
        if state_of(room).grid.index(*cell) not in state_of(room).revealed
    )
    play(room, bo, "flag", *wrong)  # a wrong flag: only the end may say so
    play(room, bo, "flag", *mines(room)[0])
    game = room.current_game()
    assert game.status == "playing"

    response = client.get(f"/r/{room.code}/rewind/")
    assert response.status_code == 302 and response["Location"] == f"/r/{room.code}/games/1/"
    for k in range(game.version + 1):
        html = client.get(f"/r/{room.code}/games/1/?move={k}").content.decode()
        assert not HIDDEN_MINE.search(html)
        data = replay_data(html)
        assert data["mines"] == [] and data["exploded"] is None
        assert not set(data["board"]) & set("*!X")
        assert not any(set(step[4]) & set("*!X") for step in data["steps"])
        assert "3BV" not in html and "Flags ✓/✗" not in html
    assert "Back to live" in html

    answer = client.get(f"/api/rooms/{room.code}/games/1").json()
    assert answer["mines"] is None
    assert "three_bv" not in answer["stats"] and "ioe" not in answer["stats"]
    assert all("right_flags" not in p for p in answer["stats"]["players"])
    assert not set("".join(answer["board"])) & set("*!X")


def test_the_api_gives_statistics_moves_and_after_the_end_the_mines(client: Client, room, ana):
    lose(room, ana)
    game = room.current_game()
    answer = client.get(f"/api/rooms/{room.code}/games/{game.number}").json()
    assert answer["status"] == game.status
    assert sorted(map(tuple, answer["mines"])) == mines(room)
    assert [m["seq"] for m in answer["moves"]] == list(range(1, game.version + 1))
    first = answer["moves"][0]
    assert (first["ms"], first["seat"], first["action"], first["x"], first["y"]) == (
        0,
        0,
        "reveal",
        4,
        4,
    )
    stats = answer["stats"]
    assert stats["clicks"] == game.version
    if game.status == "lost":
        assert stats["hit_by"] == ana.number
        assert stats["players"][0]["hit_mine"] is True and stats["players"][0]["name"] == "Ana"
    assert client.get(f"/api/rooms/{room.code}/games/5").status_code == 404


def test_the_room_page_lists_its_past_games_with_their_replays(client: Client, room, ana):
    lose(room, ana)
    playing.start_next_game(room, ana)
    session = client.session
    session["players"] = {room.code: ana.token}
    session.save()
    html = client.get(f"/r/{room.code}/").content.decode()
    listed = html[html.index('id="room-history"') :]
    assert f'href="/r/{room.code}/games/1/"' in listed
    assert "Ana" in listed
    assert f'href="/r/{room.code}/rewind/"' in listed
    assert GameSummary.objects.filter(game__room=room, game__number=1).exists()


def test_records_list_won_games_once_and_never_lost_ones(client: Client):
    won = make_room()
    win(won, joining.join_room(won, "Winner"))
    lost = make_room()
    lose(lost, joining.join_room(lost, "Loser"))
    no_guess = make_room(no_guess=True)
    win(no_guess, joining.join_room(no_guess, "Logician"))
    private = make_room(is_public=False)
    win(private, joining.join_room(private, "Hidden"))

    html = records_html(client)
    classic = table(html, "beginner")
    assert "Winner" in classic and "Loser" not in html and "Logician" not in classic
    assert classic.count("Winner") == 1
    assert f"/r/{won.code}/games/1/" in classic
    assert "Logician" in table(html, "beginner-no-guess")
    assert "Hidden" in classic and private.code not in html  # no link into a private room
    assert records_html(client).count("Winner") == 1  # counted once, however often asked
    assert GameSummary.objects.filter(game__room=won).count() == 1


def test_a_tictactoe_game_replays_move_by_move(client: Client):
    settings = tictactoe.validate_settings("human", "human")
    room = joining.create_room("tictactoe", settings)
    x, o = joining.join_room(room, "Xena"), joining.join_room(room, "Otto")
    for player, cell in ((x, 0), (o, 3), (x, 1), (o, 4), (x, 2)):
        dispatch.play(room, player, SquareMove(cell))
    html = client.get(f"/r/{room.code}/games/1/?move=3").content.decode()
    assert re.search(r'id="square-0" data-mark="X"', html)
    assert re.search(r'id="square-3" data-mark="O"', html)
    assert re.search(r'id="square-4" data-mark=""', html)
    assert "Xena" in html and "placed X in row 1, column 3: X wins" in html
    final = client.get(f"/r/{room.code}/games/1/").content.decode()
    assert re.search(r'id="square-2" data-mark="X" data-win="true"', final)


# Property: replaying the log to move k gives the board that was broadcast as version k --------

MOVE_LISTS = st.lists(
    st.tuples(
        st.sampled_from(["reveal", "flag", "flag", "chord"]),
        st.integers(0, 5),
        st.integers(0, 4),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=40,
)
"""Moves on a 6x5 board by seat 0 or 1 (x, y, seat), flags drawn twice as often."""


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(MOVE_LISTS)
def test_replay_position_k_is_the_board_broadcast_as_version_k(moves) -> None:
    room = make_room(6, 5, 5)
    players = [joining.join_room(room, "Ana"), joining.join_room(room, "Bo")]
    kind = kind_of("minesweeper")
    broadcast = {0: kind.api.text_rows(room.current_game().state, {}, None)[0]}
    for action, x, y, who in moves:
        game = room.current_game()
        if game.is_over:
            break
        try:
            dispatch.play(room, players[who], CellMove(action, x, y))
        except ValueError:  # refused (a pointless chord, a flag on an open cell): not logged
            continue
        game = Game.objects.get(pk=game.pk)
        broadcast[game.version] = kind.api.text_rows(game.state, {}, None)[0]
    game = room.current_game()
    timeline = history.timeline_of(room, game)
    assert timeline is not None and timeline.moves == game.version
    for version, rows in broadcast.items():
        assert timeline.rows_at(version) == rows


def test_timed_events_in_the_log_are_neither_replayed_nor_counted(client: Client, room, ana):
    from games.kinds.table import COMPUTER_SEAT

    play(room, ana, "reveal", 4, 4)
    game = room.current_game()
    before = history.timeline_of(room, game)
    Move.objects.create(game=game, seq=game.version + 1, seat=COMPUTER_SEAT, action="tick")
    history.forget_timelines()
    after = history.timeline_of(room, game)
    assert before is not None and after is not None
    assert after.moves == before.moves == 1
    assert after.stats["clicks"] == 1
    answer = client.get(f"/api/rooms/{room.code}/games/1").json()
    assert [m["action"] for m in answer["moves"]] == ["reveal", "tick"]  # the log, as it is


def test_the_solver_bots_moves_replay_under_its_name(client: Client, room, ana):
    from games.kinds.minesweeper import rules
    from games.protocol.messages import Command

    game = room.current_game()
    for seed in range(200):  # a board where the first reveal leaves the bot something to prove
        state, _ = engine.apply_move(
            engine.new_game(rules.config(game.params), seed),
            engine.Move(engine.Action.REVEAL, 4, 4, 0),
        )
        if not state.is_over and rules.bot_cell(state) is not None:
            break
    Game.objects.filter(pk=game.pk).update(seed=seed, state=rules.initial_state(game.params, seed))
    dispatch.play(room, ana, Command("add_bot"))
    play(room, ana, "reveal", 4, 4)
    turn = computers.computer_turn(room)
    assert turn is not None
    assert computers.computer_move(room, turn[1]) is not None
    game = room.current_game()
    html = client.get(f"/r/{room.code}/games/{game.number}/").content.decode()
    assert "<strong>Solver bot</strong> revealed" in html
    answer = client.get(f"/api/rooms/{room.code}/games/{game.number}").json()
    assert answer["moves"][-1]["seat"] == 2_147_483_647
    assert "Solver bot" in [p["name"] for p in answer["stats"]["players"]]


def test_the_history_list_refreshes_from_its_own_address(client: Client, room, ana):
    assert "No finished games yet" in client.get(f"/r/{room.code}/history/").content.decode()
    lose(room, ana)
    listed = client.get(f"/r/{room.code}/history/").content.decode()
    assert listed.startswith('<section id="room-history"')
    assert f'href="/r/{room.code}/games/1/"' in listed
    assert client.get("/r/nope/history/").status_code == 404
    assert client.get("/r/nope/rewind/").status_code == 404


def test_nicknames_are_escaped_on_the_replay_page_and_in_the_records(client: Client):
    room = make_room()
    mallory = joining.join_room(room, "<b>Mal</b>")
    win(room, mallory)
    replay_page = client.get(f"/r/{room.code}/games/1/").content.decode()
    records_page = records_html(client)
    for html in (replay_page, records_page):
        assert "<b>Mal</b>" not in html
        assert "&lt;b&gt;Mal&lt;/b&gt;" in html


def test_every_records_table_is_a_region_with_its_own_name(client: Client):
    """Each table's region is named by its heading and its board's, so no two landmarks share a
    name (Beginner's "Co-op teams" is not Expert's)."""
    html = records_html(client)
    texts = {
        id_: re.sub(r"<[^>]+>", " ", inner)
        for id_, inner in re.findall(r'<h[23] id="([^"]+)">(.*?)</h[23]>', html)
    }
    sections = re.findall(r'<section class="card record-table"[^>]*aria-labelledby="([^"]+)"', html)
    names = [" ".join(" ".join(texts[id_].split()) for id_ in ids.split()) for ids in sections]
    assert len(names) > 2 and len(set(names)) == len(names)


def test_a_game_under_way_is_built_once_per_version(
    client: Client, room, ana, django_assert_num_queries
):
    """Issue 26, item 6: clients looking at a long game under way share one build of its
    timeline until the next move; the move makes the next view build the new version."""
    play(room, ana, "reveal", 4, 4)
    game = room.current_game()
    first = history.timeline_of(room, game)
    with django_assert_num_queries(0):
        again = history.timeline_of(room, game)
    assert again is first
    state = state_of(room)
    hidden = next(c for c in range(state.grid.size) if c not in state.revealed)
    play(room, ana, "flag", *state.grid.xy(hidden))
    game = room.current_game()
    later = history.timeline_of(room, game)
    assert later is not None and later is not first and later.moves == 2
    assert client.get(f"/r/{room.code}/games/1/?move=2").status_code == 200


def test_the_api_reads_a_games_log_once_per_version(client: Client, room, ana):
    """Issue 26, item 6: the API's view of a long game is made once per version."""
    play(room, ana, "reveal", 4, 4)
    url = f"/api/rooms/{room.code}/games/1"
    first = client.get(url).json()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url).json()
    assert again == first
    assert not [q for q in queries.captured_queries if "games_move" in q["sql"]]
    state = state_of(room)
    hidden = next(c for c in range(state.grid.size) if c not in state.revealed)
    play(room, ana, "flag", *state.grid.xy(hidden))
    assert client.get(url).json()["version"] == 2


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(MOVE_LISTS)
def test_a_timeline_extended_move_by_move_is_the_one_built_from_the_whole_log(moves) -> None:
    """Issue 26, item 6: looking after every move appends the new moves to the kept timeline;
    what it shows, statistics included, is what a build from the whole log shows."""
    history.forget_timelines()
    room = make_room(6, 5, 5)
    players = [joining.join_room(room, "Ana"), joining.join_room(room, "Bo")]
    extended = None
    for action, x, y, who in moves:
        if room.current_game().is_over:
            break
        try:
            dispatch.play(room, players[who], CellMove(action, x, y))
        except ValueError:  # refused (a pointless chord, a flag on an open cell): not logged
            continue
        extended = history.timeline_of(room, room.current_game())
    if extended is None:
        return
    history.forget_timelines()
    whole = history.timeline_of(room, room.current_game())
    assert whole is not None
    assert replace(extended, resume=None) == replace(whole, resume=None)


def test_the_first_view_after_a_move_reads_only_the_new_moves(room, ana):
    """Issue 26, item 6: a long game's first view after a move costs that move, not the log."""
    play(room, ana, "reveal", 4, 4)
    state = state_of(room)
    hidden = [c for c in range(state.grid.size) if c not in state.revealed][:3]
    for cell in hidden:
        play(room, ana, "flag", *state.grid.xy(cell))
    history.timeline_of(room, room.current_game())
    play(room, ana, "flag", *state.grid.xy(hidden[0]))
    with CaptureQueriesContext(connection) as queries:
        later = history.timeline_of(room, room.current_game())
    assert later is not None and later.moves == 5
    read = [q["sql"] for q in queries.captured_queries if 'FROM "games_move"' in q["sql"]]
    assert len(read) == 1 and '"seq" > 4' in read[0], read


def test_the_replay_page_after_a_move_writes_out_the_new_entry_only(client: Client, room, ana):
    """Issue 26, item 6: the timeline's list of entries is extended like the timeline, and the
    page is the one a fresh build gives."""
    from games.web import replays

    play(room, ana, "reveal", 4, 4)
    state = state_of(room)
    hidden = next(c for c in range(state.grid.size) if c not in state.revealed)
    url = f"/r/{room.code}/games/1/"
    client.get(url)
    earlier = replays._entries_of(history.timeline_of(room, room.current_game()))
    play(room, ana, "flag", *state.grid.xy(hidden))
    page = without_nonces(client.get(url).content.decode())
    later = replays._entries_of(history.timeline_of(room, room.current_game()))
    assert len(later) == 2 and later[0] is earlier[0]
    history.forget_timelines()
    replays._entries.clear()
    assert without_nonces(client.get(url).content.decode()) == page


def without_nonces(html: str) -> str:
    """A page without its per-request script nonces."""
    return re.sub(r'nonce="[^"]*"', "", html)


def test_the_api_view_after_a_move_reads_only_the_new_moves(client: Client, room, ana):
    """Issue 26, item 6: the API's log is extended like the timeline, and is the whole log."""
    play(room, ana, "reveal", 4, 4)
    state = state_of(room)
    hidden = next(c for c in range(state.grid.size) if c not in state.revealed)
    url = f"/api/rooms/{room.code}/games/1"
    client.get(url)
    play(room, ana, "flag", *state.grid.xy(hidden))
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(url).json()
    read = [q["sql"] for q in queries.captured_queries if 'FROM "games_move"' in q["sql"]]
    assert read and all('"seq" > 1' in sql for sql in read), read
    assert [(m["seq"], m["action"]) for m in answer["moves"]] == [(1, "reveal"), (2, "flag")]
