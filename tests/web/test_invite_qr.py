"""Sharing the invite (issue 35, point 4): the room page offers Copy, the share sheet (hidden
until the browser has one) and a QR code of the invite link, drawn on the server by segno; the
watch page never shows the QR code."""

import re
import xml.etree.ElementTree as ET

import pytest
import segno
from django.test import Client

pytestmark = pytest.mark.django_db

NS = "{http://www.w3.org/2000/svg}"


def seated_browser() -> tuple[Client, str]:
    browser = Client()
    body = {"game": "minesweeper", "preset": "beginner", "name": "Ana"}
    code = browser.post("/api/rooms", body, content_type="application/json").json()["code"]
    assert browser.post(f"/r/{code}/join/", {"nickname": "Bo"}).status_code == 302
    return browser, code


STEP = re.compile(r"([Mmh])(-?[0-9.]+)(?: (-?[0-9.]+))?")


def dark_modules(svg: bytes) -> set[tuple[int, int]]:
    """The (column, row) of every dark module the SVG draws: its dark path is runs of `h` lines
    along rows, reached by `M`/`m` moves, in units of one module (inside `scale(...)`)."""
    root = ET.fromstring(svg)
    (path,) = [p for p in root.iter(f"{NS}path") if p.get("stroke")]
    x = y = 0.0
    dark = set()
    for op, first, second in STEP.findall(path.get("d")):
        if op == "M":
            x, y = float(first), float(second)
        elif op == "m":
            x, y = x + float(first), y + float(second)
        else:
            dark.update((int(x) + i, int(y)) for i in range(int(first)))
            x += float(first)
    return dark


def symbol(link: str) -> set[tuple[int, int]]:
    """The dark modules of `link`'s QR code (medium error correction), with the 4-module quiet
    zone around it."""
    matrix = segno.make_qr(link, error="m").matrix
    return {(x + 4, y + 4) for y, row in enumerate(matrix) for x, bit in enumerate(row) if bit}


def test_the_qr_code_is_an_svg_of_the_invite_link_kept_a_day():
    browser, code = seated_browser()
    answer = browser.get(f"/r/{code}/qr.svg")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/svg+xml"
    cache = answer["Cache-Control"]
    assert "max-age=86400" in cache and "private" in cache
    assert ET.fromstring(answer.content).tag == f"{NS}svg"
    modules = dark_modules(answer.content)
    assert modules == symbol(f"http://testserver/r/{code}/")  # the invite link, and nothing else
    assert modules != symbol(f"http://testserver/r/{code}/watch/")
    assert Client().get(f"/r/{code}/qr.svg").content == answer.content  # no session needed


def test_an_unknown_room_has_no_qr_code():
    assert Client().get(f"/r/{'x' * 22}/qr.svg").status_code == 404
    assert Client().post(f"/r/{'x' * 22}/qr.svg").status_code in (404, 405)


def test_the_room_page_offers_copy_share_and_the_qr_code_and_the_watch_page_no_qr():
    browser, code = seated_browser()
    page = browser.get(f"/r/{code}/").content.decode()
    assert 'data-copy="#invite-link"' in page
    assert 'data-share="#invite-link" hidden' in page  # live.js shows it where share exists
    assert f'src="/r/{code}/qr.svg"' in page and "<summary>QR code</summary>" in page
    for watcher in (browser, Client()):
        watch = watcher.get(f"/r/{code}/watch/").content.decode()
        assert "qr.svg" not in watch and "data-share" not in watch
