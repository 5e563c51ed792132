"""Link previews (issue 28): the room, watch and replay pages carry Open Graph and Twitter card
tags in words that fit the kind, and their picture is a 1200×630 PNG of the public board only,
drawn once per game version, at a bounded cost per client address."""

import html
import io
import re
import time
import uuid

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from PIL import Image

from games.engine import minesweeper as engine
from games.engine import stats
from games.kinds import preview_words
from games.kinds.flags import rules as flags_rules
from games.kinds.minesweeper import rules as minesweeper
from games.kinds.replays import Page
from games.kinds.tictactoe import rules as tictactoe_rules
from games.protocol.messages import CellMove, SquareMove
from games.rooms import dispatch, joining
from games.store.models import Game, Move, Player, Room
from games.templatetags.figures import figure
from games.web import history, preview_image, previews
from tests.helpers.race_replays import api_race, go, numbered_hidden, race_of, send

pytestmark = pytest.mark.django_db
CRAWLER = {"User-Agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"}
META = re.compile(r'<meta (?:property|name)="([a-z:_]+)" content="([^"]*)">')


@pytest.fixture(autouse=True)
def fresh():
    history.forget_timelines()  # ids come again in a flushed database
    previews.forget_pictures()
    yield
    history.forget_timelines()
    previews.forget_pictures()


def tags(page: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in META.findall(page)}


def crawl(url: str) -> dict[str, str]:
    answer = Client().get(url, headers=CRAWLER)
    assert answer.status_code == 200
    return tags(answer.content.decode())


def picture(url: str) -> Image.Image:
    answer = Client().get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/png"
    return Image.open(io.BytesIO(answer.content))


def expert_room(*names: str) -> Room:
    room, _ = joining.open_room("minesweeper", minesweeper.validate_settings(30, 16, 99), names[0])
    for name in names[1:]:
        joining.join_room(room, name)
    return room


def seat(room: Room, name: str) -> Player:
    return room.players.get(nickname=name)


def rows() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Room, Player, Game, Move, Session))


def test_a_crawler_gets_the_tags_and_takes_no_seat():
    room = expert_room("Ana", "Bo")
    before = rows()
    found = crawl(f"/r/{room.code}/")
    assert rows() == before  # no seat, no session, no game: the crawler only looked
    assert found["og:title"] == "Ana and Bo are clearing an expert board — join"
    assert found["twitter:card"] == "summary_large_image"
    assert found["og:type"] == "website"
    assert found["og:url"] == f"http://testserver/r/{room.code}/"
    assert found["og:image"].startswith(f"http://testserver/r/{room.code}/preview.png?v=")
    assert "30×16, 99 mines" in found["og:description"]
    assert found["twitter:image"] == found["og:image"]


def test_the_watch_page_says_watch_and_the_image_url_follows_the_version():
    room = expert_room("Ana")
    first = crawl(f"/r/{room.code}/watch/")
    assert first["og:title"] == "Ana is clearing an expert board — watch"
    dispatch.play(room, seat(room, "Ana"), CellMove("reveal", 5, 5))
    second = crawl(f"/r/{room.code}/watch/")
    assert second["og:image"] != first["og:image"]


def test_tls_behind_a_proxy_gives_https_urls(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    room = expert_room("Ana")
    answer = Client().get(
        f"/r/{room.code}/watch/", headers={"X-Forwarded-Proto": "https", "Host": "testserver"}
    )
    assert tags(answer.content.decode())["og:image"].startswith("https://testserver/")


def test_names_are_escaped_in_the_tags():
    room = expert_room('<b>"Al"&', "Bo")
    page = Client().get(f"/r/{room.code}/watch/").content.decode()
    assert "<b>" not in page.split("</head>")[0]
    assert "&lt;b&gt;&quot;Al&quot;&amp; and Bo are clearing" in page
    assert crawl(f"/r/{room.code}/watch/")["og:title"].startswith('<b>"Al"& and Bo')


def test_a_race_says_how_many_race_and_on_what(client):
    code, tokens = api_race(client, names=("Ana", "Bo", "Cy"), preset="intermediate")
    assert crawl(f"/r/{code}/")["og:title"] == "Race: 3 racers on intermediate — join"
    assert send(client, code, tokens[0], action="start") == 200
    go(code)
    assert crawl(f"/r/{code}/")["og:title"] == "Race: 3 racers on intermediate — watch"
    replay = crawl(f"/r/{code}/games/1/")  # under way: no move to show, its boards drawn blank
    assert replay["og:image"] == f"http://testserver/r/{code}/games/1/preview.png"
    assert picture(replay["og:image"].removeprefix("http://testserver")).size == (1200, 630)


def test_a_race_with_the_solver_bot_names_it_beside_the_racers(client):
    """Issue 35: "2 racers" while the Solver bot raced too."""
    code, tokens = api_race(client, names=("Ana", "Bo"))
    assert send(client, code, tokens[0], action="add_bot") == 200
    assert (
        crawl(f"/r/{code}/")["og:title"] == "Race: 2 racers and the Solver bot on beginner — join"
    )
    assert send(client, code, tokens[0], action="start") == 200
    go(code)
    title = crawl(f"/r/{code}/")["og:title"]
    assert title == "Race: 2 racers and the Solver bot on beginner — watch"


def test_flags_shows_the_score_and_tictactoe_the_sides():
    flags, _ = joining.open_room(
        "flags", flags_rules.validate_settings("human", "human", 51, 0), "Ana"
    )
    joining.join_room(flags, "Bo")
    assert crawl(f"/r/{flags.code}/watch/")["og:title"] == "Flags: Ana vs Bo, 0–0"
    game, _ = joining.open_room(
        "tictactoe", tictactoe_rules.validate_settings("human", "perfect"), "Ana"
    )
    assert crawl(f"/r/{game.code}/watch/")["og:title"] == "Tic-tac-toe: Ana vs Computer (perfect)"
    dispatch.play(game, seat(game, "Ana"), SquareMove(4))
    assert "Tic-tac-toe: Ana" in crawl(f"/r/{game.code}/watch/")["og:title"]


def test_the_picture_is_a_1200_by_630_png_even_of_the_largest_board():
    room, _ = joining.open_room("minesweeper", minesweeper.validate_settings(50, 50, 500), "Ana")
    dispatch.play(room, seat(room, "Ana"), CellMove("reveal", 25, 25))
    answer = Client().get(f"/r/{room.code}/preview.png")
    image = Image.open(io.BytesIO(answer.content))
    assert (image.format, image.size) == ("PNG", (1200, 630))
    assert len(answer.content) < 150_000
    assert answer["Cache-Control"] == f"public, max-age={previews.LIVE_MAX_AGE}"


def cells(room: Room, image: Image.Image) -> dict[int, bytes]:
    """Each cell's pixels in the room's picture, by cell index."""
    game = room.current_game()
    timeline = history.timeline_of(room, game)
    drawn = previews.picture_of(room, game, timeline, timeline.moves, Page.WATCH)
    at = preview_image.layout(drawn)
    parts = at.count
    size = drawn.width * drawn.height
    return {
        part * size + i: image.crop(at.cell_box(part, i, drawn.width)).tobytes()
        for part in range(parts)
        for i in range(size)
    }


def test_no_hidden_mine_is_drawn_before_the_end_and_every_mine_after_a_loss():
    room = expert_room("Ana")
    ana = seat(room, "Ana")
    dispatch.play(room, ana, CellMove("reveal", 5, 5))
    state = engine.from_dict(room.current_game().state)
    mines = sorted(state.field.mines)
    hidden_safe = [
        c for c in range(state.grid.size) if c not in state.revealed and c not in state.field.mines
    ]
    drawn = cells(room, picture(f"/r/{room.code}/preview.png"))
    assert {drawn[c] for c in mines} == {drawn[hidden_safe[0]]}  # a mine looks like any hidden cell
    dispatch.play(room, ana, CellMove("reveal", *state.grid.xy(mines[0])))
    assert room.current_game().status == "lost"
    after = cells(room, picture(f"/r/{room.code}/preview.png"))
    assert all(after[c] != drawn[hidden_safe[0]] for c in mines)
    assert after[hidden_safe[0]] == drawn[hidden_safe[0]]


def test_a_race_under_way_draws_no_racer_s_cells(client):
    code, (ana, _) = api_race(client)
    assert send(client, code, ana, action="start") == 200
    go(code)
    for x, y in numbered_hidden(code, 0)[:3]:  # a zero's cascade could finish the board
        assert send(client, code, ana, action="reveal", x=x, y=y) == 200
    assert race_of(code).racer(0).board.revealed  # Ana's board has open cells...
    room = Room.objects.get(code=code)
    drawn = cells(room, picture(f"/r/{code}/preview.png"))
    assert len(set(drawn.values())) == 1  # ...none of which the picture shows
    assert len(drawn) == 2 * 9 * 9


def test_a_picture_is_drawn_once_per_version(monkeypatch):
    drawn: list[object] = []
    real = previews.png
    monkeypatch.setattr(previews, "png", lambda picture: drawn.append(picture) or real(picture))
    room = expert_room("Ana")
    url = f"/r/{room.code}/preview.png"
    first = Client().get(url)
    second = Client().get(url)
    assert len(drawn) == 1 and second.content == first.content
    again = Client().get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and len(drawn) == 1
    dispatch.play(room, seat(room, "Ana"), CellMove("reveal", 5, 5))
    assert Client().get(url).content != first.content
    assert len(drawn) == 2


def test_drawing_is_limited_per_address_and_kept_pictures_stay_free(settings, monkeypatch):
    settings.PREVIEWS_PER_MINUTE = 2
    minute = (time.time() // 60) * 60 + 30  # the count is per clock minute: stay inside one
    monkeypatch.setattr(previews, "now", lambda: minute)
    # An address of its own: no earlier drawing this minute counts against it (Redis in CI).
    address = f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"
    room = expert_room("Ana")
    ana = seat(room, "Ana")
    dispatch.play(room, ana, CellMove("reveal", 5, 5))
    state = engine.from_dict(room.current_game().state)
    mine = state.grid.xy(min(state.field.mines))  # hidden whatever the opening opened
    dispatch.play(room, ana, CellMove("flag", *mine))
    base = f"/r/{room.code}/games/1/preview.png?move="
    assert Client(REMOTE_ADDR=address).get(base + "0").status_code == 200
    assert Client(REMOTE_ADDR=address).get(base + "1").status_code == 200
    refused = Client(REMOTE_ADDR=address).get(base + "2")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    kept = Client(REMOTE_ADDR=address).get(base + "0")  # kept: no drawing, not counted
    assert kept.status_code == 200


def test_replay_tags_name_the_winners_and_its_picture_takes_a_move():
    room, _ = joining.open_room("minesweeper", minesweeper.validate_settings(9, 9, 10), "Ana")
    ana = seat(room, "Ana")
    dispatch.play(room, ana, CellMove("reveal", 4, 4))
    state = engine.from_dict(room.current_game().state)
    for cell in range(state.grid.size):
        if cell not in state.field.mines and room.current_game().status == "playing":
            dispatch.play(room, ana, CellMove("reveal", *state.grid.xy(cell)))
    assert room.current_game().status == "won"
    found = crawl(f"/r/{room.code}/games/1/")
    time_ms = history.timeline_of(room, room.current_game()).stats["time_ms"]
    shown = f"{figure(stats.seconds(time_ms))} s"  # the banner's time, as its template writes it
    assert found["og:title"] == f"Replay: Ana won beginner in {shown}"  # not "8.6 s" by "8.56 s"
    moves = history.timeline_of(room, room.current_game()).moves
    assert found["og:image"].endswith(f"/r/{room.code}/games/1/preview.png?move={moves}")
    assert picture(found["og:image"].replace("http://testserver", "")).size == (1200, 630)
    start = Client().get(f"/r/{room.code}/games/1/preview.png?move=0")
    assert start["Cache-Control"] == f"public, max-age={previews.DONE_MAX_AGE}"
    bad = Client().get(f"/r/{room.code}/games/1/preview.png?move=abc")
    assert bad.status_code == 400 and b"move must be a whole number" in bad.content
    assert Client().get(f"/r/{room.code}/games/9/preview.png").status_code == 404


def test_without_the_system_font_names_are_drawn_in_ascii(monkeypatch):
    monkeypatch.setattr(preview_image, "FONT", "no-such-font.ttf")
    preview_image.font.cache_clear()
    preview_image.has_font.cache_clear()
    try:
        assert preview_image.drawable("Flags: José vs Bo, 3–4") == "Flags: Jose vs Bo, 3-4"
        assert preview_image.drawable("あい") == "??"
    finally:
        preview_image.font.cache_clear()
        preview_image.has_font.cache_clear()


def test_titles_name_three_people_and_count_the_rest_and_say_a_or_an():
    assert preview_words.together(["Ana", "Bo", "Cy", "Di", "Ed"]) == "Ana, Bo, Cy and 2 others"
    assert preview_words.together(["Ana", "Bo"]) == "Ana and Bo"
    assert preview_words.a_board(preview_words.board_words(20, 12, 30)) == "a 20×12 board"
    assert preview_words.a_board(preview_words.board_words(8, 8, 10)) == "an 8×8 board"
    assert preview_words.a_board(preview_words.board_words(16, 16, 40)) == "an intermediate board"
