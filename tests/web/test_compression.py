"""Compressed answers where the app serves alone (issue 35): GET pages and JSON gzipped, DEBUG
or not; answers to a POST, which can put what was sent beside a secret (BREACH), never."""

import gzip
import re

import pytest
from django.test import Client

from games.kinds.minesweeper import render
from games.kinds.minesweeper import rules as minesweeper
from games.rooms import joining
from games.store.models import Room

pytestmark = pytest.mark.django_db
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
BIG_WATCH_PAGE_GZIPPED = 40_000
"""Bytes a 50×50 watch page may take on the wire (docs/performance.md: about 13 KB)."""
CONTRACT = (
    r'<button class="cell" id="cell-(\d+)-(\d+)" data-x="\1" data-y="\2" data-state="hidden">'
)


def big_room() -> Room:
    settings = minesweeper.validate_settings(50, 50, 400, False)
    room, _ = joining.open_room("minesweeper", settings, "Ana")
    return room


@pytest.mark.parametrize("debug", [False, True])
def test_pages_and_json_are_gzipped_under_debug_too(client, settings, debug):
    settings.DEBUG = debug
    room = big_room()
    for path in ("/", "/records/", f"/r/{room.code}/watch/", f"/api/rooms/{room.code}"):
        answer = client.get(path, **GZIP)
        assert answer.status_code == 200, path
        assert answer["Content-Encoding"] == "gzip", path
        assert "Accept-Encoding" in answer["Vary"]
        assert gzip.decompress(answer.content)  # a whole gzip stream


def test_a_50_by_50_watch_page_is_sent_small():
    room = big_room()
    plain = Client().get(f"/r/{room.code}/watch/")
    packed = Client().get(f"/r/{room.code}/watch/", **GZIP)
    assert 'id="cell-49-49" data-x="49" data-y="49" data-state="hidden"' in plain.content.decode()
    assert "Content-Encoding" not in plain
    assert len(packed.content) < BIG_WATCH_PAGE_GZIPPED < len(plain.content)


def test_a_big_board_is_sent_compact_and_keeps_the_cell_contract(client):
    """Over 1,000 cells each cell leaves out its type, aria-label and tabindex (room.js restores
    them: tests/e2e/test_compact_board.py); an expert board keeps them."""
    page = client.get(f"/r/{big_room().code}/watch/").content.decode()
    cells = re.findall(r'<button [^>]*id="cell-\d+-\d+"[^>]*>', page)
    assert len(cells) == 2500 and "data-compact" in page
    assert all(re.fullmatch(CONTRACT, cell) for cell in cells), cells[0]
    settings = minesweeper.validate_settings(30, 16, 99, False)
    expert, _ = joining.open_room("minesweeper", settings, "Bo")
    small = client.get(f"/r/{expert.code}/watch/").content.decode()
    assert small.count('aria-label="row ') == 480 and "data-compact" not in small


def test_a_big_boards_socket_snapshot_is_compact_too():
    room = big_room()
    text = render.snapshot_html(room, room.current_game())
    assert text.count('class="cell"') == 2500 and 'aria-label="row ' not in text
    assert 'id="cell-49-49" data-x="49" data-y="49" data-state="hidden"' in text


def test_answers_to_a_post_are_never_compressed(client):
    """A form sent back with its errors shows what was typed beside the form's CSRF token;
    the API's token answers carry a token: neither is compressed (BREACH)."""
    refused = client.post(
        "/rooms/", {"nickname": "Ana", "preset": "custom", "width": "500"}, **GZIP
    )
    assert refused.status_code == 400 and "Content-Encoding" not in refused
    assert b"csrfmiddlewaretoken" in refused.content
    created = client.post(
        "/api/rooms",
        {"game": "minesweeper", "preset": "beginner"},
        content_type="application/json",
        **GZIP,
    )
    assert created.status_code == 201 and "Content-Encoding" not in created
    assert b"player_token" in created.content
