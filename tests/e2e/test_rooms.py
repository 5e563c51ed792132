"""Real games in Chromium: create a room, invite a second player, watch, lose, start over and win.

Every wait is one of Playwright's auto-waiting `expect` assertions; the mines come from the
server's database (`game_db`) so a test can lose or win on purpose.
"""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.rooms import (
    PHONE,
    cell,
    create_room,
    invite_link,
    join_room,
    mines_on_the_edge,
    next_safe_cell,
    reveal_all,
    shot,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

SIZE = ("Width", "Height", "Mines")
OPEN_STATES = re.compile(r"^(revealed|mine|exploded|flagged|wrong-flag)$")


# --- helpers --------------------------------------------------------------------------------


# --- pages ------------------------------------------------------------------------------------


def test_home_page_rejects_a_custom_board_that_is_too_wide(new_context, screenshots):
    page = new_context().new_page()
    page.goto("/")
    expect(page.get_by_role("heading", name="Minesweeper, together.")).to_be_visible()
    expect(page.locator("#custom-size")).to_be_hidden()
    shot(page, screenshots, "home", full_page=True)

    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="custom"]').check()
    expect(page.locator("#custom-size")).to_be_visible()
    page.get_by_label("Width").fill("500")
    page.get_by_role("button", name="Create room").click()

    expect(page.locator("#width-error")).to_have_text("Width must be a whole number from 2 to 50.")
    expect(page).to_have_url(re.compile(r"/rooms/$"))
    expect(page.get_by_label("Width")).to_have_value("500")
    expect(page.locator("#custom-size")).to_be_visible()


def test_a_refused_size_takes_focus_and_shows_its_error_at_the_field(new_context):
    """At 1280×800 the error of a 3×3 board (too small for mines) is at Width, which has focus,
    in view, and the Height and Mines inputs keep their height beside the longer error."""
    page = new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto("/")
    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="custom"]').check()
    size = {name: page.get_by_role("spinbutton", name=name, exact=True) for name in SIZE}
    for name, value in zip(SIZE, ("3", "3", "1"), strict=True):
        size[name].fill(value)
    page.get_by_role("button", name="Create room").click()

    width, error = size["Width"], page.locator("#width-error")
    expect(width).to_be_focused()
    expect(width).to_have_attribute("aria-invalid", "true")
    expect(error).to_contain_text("A 3×3 board is too small for mines")
    expect(error).to_be_in_viewport(ratio=1)
    expect(page.locator("#mines-error")).to_have_count(0)
    field, message = width.bounding_box(), error.bounding_box()
    assert field and message
    assert 0 <= message["y"] - (field["y"] + field["height"]) < 20  # right under Width
    assert abs(message["x"] - field["x"]) < 2
    for name in ("Height", "Mines"):
        assert size[name].bounding_box()["height"] == field["height"]


def test_create_room_is_on_the_first_screen_of_a_laptop(new_context):
    """At 1280×800 the whole form, its button included, shows without scrolling."""
    page = new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto("/")
    expect(page.get_by_role("button", name="Create room")).to_be_in_viewport(ratio=1)


def test_home_page_in_dark_mode(new_context, screenshots):
    page = new_context(color_scheme="dark").new_page()
    page.goto("/")
    expect(page.get_by_role("button", name="Create room")).to_be_visible()
    shot(page, screenshots, "home-dark", full_page=True)


FLAG_PIXELS = """async (cell) => {
    // The flag as the page draws it, at a small cell's size: red pixels and the rest.
    const url = getComputedStyle(cell, "::after").backgroundImage.slice(5, -2);
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 12;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0, 12, 12);
    const data = context.getImageData(0, 0, 12, 12).data;
    let red = 0, other = 0;
    for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] < 128) continue;
        if (data[i] > data[i + 1] + 80 && data[i] > data[i + 2] + 80) red++; else other++;
    }
    return { red, other };
}"""


def test_dark_mode_flag_is_mostly_its_red_pennant(new_context):
    """In dark mode a light pole and base under a small pennant read as a "1" at small sizes;
    the pennant must be most of the glyph."""
    page = new_context(color_scheme="dark").new_page()
    page.goto("/")
    pixels = page.locator('.hero-board .cell[data-state="flagged"]').first.evaluate(FLAG_PIXELS)
    assert pixels["red"] > 0.55 * (pixels["red"] + pixels["other"]), pixels


def test_unknown_room_shows_the_not_found_page(new_context, screenshots):
    page = new_context().new_page()
    response = page.goto("/r/no-such-room-code/")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", name="Nothing here")).to_be_visible()
    expect(page.get_by_role("link", name="Start a new room")).to_have_attribute("href", "/")
    shot(page, screenshots, "not-found")


# --- playing together -------------------------------------------------------------------------


def test_invited_player_and_host_see_each_others_moves(
    new_context, game_db, screenshots, publish_screenshot
):
    ana = new_context().new_page()
    code = create_room(ana, "Ana", preset="intermediate")
    bo = join_room(
        new_context(color_scheme="dark"), invite_link(ana), "Bo", screenshots / "join-dark.png"
    )

    roster = "#roster .roster-player"
    for page in (ana, bo):
        expect(page.locator(f'{roster}[data-online="true"]')).to_have_count(2)
        expect(page.locator(roster)).to_have_text([re.compile("Ana"), re.compile("Bo")])
    expect(bo.locator(f"{roster}.me")).to_contain_text("Bo")

    cell(ana, 8, 8).click()
    expect(cell(bo, 8, 8)).to_have_attribute("data-state", "revealed")
    expect(bo.locator("#narration")).to_contain_text("Ana revealed")

    edge = mines_on_the_edge(game_db, code)[:3]
    assert edge, "a first click always opens an area with mines around it"
    for x, y in edge:
        cell(bo, x, y).click(button="right")
        expect(cell(ana, x, y)).to_have_attribute("data-state", "flagged")
    expect(ana.locator("#mines-left")).to_have_text(f"{40 - len(edge):03d}")

    x, y = next_safe_cell(game_db, code)
    cell(bo, x, y).click()
    expect(cell(ana, x, y)).to_have_attribute("data-state", "revealed")
    expect(ana.locator('#roster [data-seat="1"] .share')).not_to_have_text("0")

    # Bo's pointer shows on Ana's board in Bo's colour.
    hidden = bo.locator('#board .cell[data-state="hidden"]').nth(40)
    hidden.hover()
    x, y = hidden.get_attribute("data-x"), hidden.get_attribute("data-y")
    expect(cell(ana, x, y)).to_have_attribute("data-cursor", "1")

    ana.mouse.move(0, 0)
    shot(ana, screenshots, "in-play")
    publish_screenshot(screenshots / "in-play.png", "screenshot.png")
    shot(bo, screenshots, "in-play-dark")


def test_spectator_sees_moves_live_but_cannot_play(new_context, live_server_url, screenshots):
    ana = new_context().new_page()
    create_room(ana, "Ana")
    watch_url = ana.get_by_role("link", name="Watch link").get_attribute("href")
    viewer = new_context().new_page()
    viewer.goto(watch_url)
    wait_until_live(viewer)
    expect(viewer.locator(".mode-pill")).to_have_text("Spectating")
    expect(ana.locator("#roster .spectators")).to_have_text("1 watching")

    cell(ana, 4, 4).click()
    expect(cell(viewer, 4, 4)).to_have_attribute("data-state", "revealed")
    expect(cell(ana, 4, 4)).to_have_attribute("data-state", "revealed")  # both have the move
    version = ana.locator("#board").get_attribute("data-version")
    expect(viewer.locator("#board")).to_have_attribute("data-version", version)

    # A click on the spectator's board sends nothing...
    target = viewer.locator('#board .cell[data-state="hidden"]').first
    x, y = target.get_attribute("data-x"), target.get_attribute("data-y")
    target.click()
    target.click(button="right")
    # ...and a hand-made move on a spectator socket is refused by the server.
    refusal = viewer.evaluate(
        """([url, x, y]) => new Promise((resolve, reject) => {
            const socket = new WebSocket(url);
            socket.onopen = () => socket.send(JSON.stringify({action: "reveal", x: +x, y: +y}));
            socket.onmessage = (event) => {
                if (event.data.includes("room-error") && event.data.includes("<span>")) {
                    socket.close();
                    resolve(event.data);
                }
            };
            socket.onerror = reject;
        })""",
        [watch_socket_url(live_server_url, viewer), x, y],
    )
    assert "Spectators can watch but not play" in refusal

    # The next real move arrives after anything the spectator could have caused.
    other = ana.locator('#board .cell[data-state="hidden"]').last
    ox, oy = other.get_attribute("data-x"), other.get_attribute("data-y")
    other.click(button="right")
    expect(cell(viewer, ox, oy)).to_have_attribute("data-state", "flagged")
    expect(cell(viewer, x, y)).to_have_attribute("data-state", "hidden")
    expect(cell(ana, x, y)).to_have_attribute("data-state", "hidden")
    expect(viewer.locator("#board")).to_have_attribute("data-version", str(int(version) + 1))
    expect(viewer.locator(".new-game")).to_be_hidden()
    shot(viewer, screenshots, "spectator")


def watch_socket_url(live_server_url: str, page: Page) -> str:
    code = page.locator(".room").get_attribute("data-room")
    return live_server_url.replace("http", "ws", 1) + f"/ws/r/{code}/?watch=1"


def test_hitting_a_mine_ends_the_game_for_everyone_and_a_new_one_starts(
    new_context, game_db, screenshots
):
    ana = new_context().new_page()
    code = create_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    viewer = new_context().new_page()
    viewer.goto(ana.get_by_role("link", name="Watch link").get_attribute("href"))
    wait_until_live(viewer)
    pages = (ana, bo, viewer)

    cell(ana, 0, 0).click()
    expect(cell(bo, 0, 0)).to_have_attribute("data-state", "revealed")
    mines = game_db.mines(code)
    flagged, boom = mines[0], mines[-1]
    cell(ana, *flagged).click(button="right")
    expect(cell(bo, *flagged)).to_have_attribute("data-state", "flagged")

    cell(bo, *boom).click()
    for page in pages:
        expect(page.locator("#board")).to_have_attribute("data-status", "lost")
        expect(page.locator("#banner")).to_contain_text("Boom! Bo hit a mine.")
        expect(cell(page, *boom)).to_have_attribute("data-state", "exploded")
        expect(cell(page, *flagged)).to_have_attribute("data-state", "flagged")
        for mine in mines:
            if mine not in (boom, flagged):
                expect(cell(page, *mine)).to_have_attribute("data-state", "mine")
        expect(page.locator(".face")).to_have_attribute("data-status", "lost")
    shot(ana, screenshots, "lost")

    ana.get_by_role("button", name="Try again").click()
    for page in pages:
        expect(page.locator("#board")).to_have_attribute("data-game", "2")
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
        expect(page.locator('#board .cell[data-state="hidden"]')).to_have_count(81)
        expect(page.locator("#banner")).to_be_hidden()
        expect(page.locator("#mines-left")).to_have_text("010")

    # The fresh board plays: the first reveal opens cells for everyone.
    cell(bo, 4, 4).click()
    for page in pages:
        expect(cell(page, 4, 4)).to_have_attribute("data-state", "revealed")


def test_clearing_the_board_wins_with_each_players_share(new_context, game_db, screenshots):
    ana = new_context().new_page()
    code = create_room(ana, "Ana")
    bo = join_room(new_context(), invite_link(ana), "Bo")

    for _ in range(5):  # rarely, the first reveal's cascade clears the board alone
        cell(ana, 4, 4).click()
        expect(cell(bo, 4, 4)).to_have_attribute("data-state", "revealed")
        hidden = game_db.hidden_safe_cells(code)
        if hidden:
            break
        expect(ana.locator(".face")).to_have_attribute("data-status", "won")
        ana.locator(".face").click()
        expect(cell(bo, 4, 4)).to_have_attribute("data-state", "hidden")
    # Bo first reveals a cell still hidden, so both players have a share of the board.
    bo_half = hidden[: max(1, len(hidden) // 2)]
    reveal_all(bo, bo_half)
    for x, y in bo_half:
        expect(cell(ana, x, y)).to_have_attribute("data-state", OPEN_STATES)
    reveal_all(ana, game_db.safe_cells(code))

    for page in (ana, bo):
        expect(page.locator("#board")).to_have_attribute("data-status", "won")
        banner = page.locator("#banner")
        expect(banner).to_contain_text("Board cleared")
        expect(banner.locator(".shares li")).to_have_count(2)
        expect(banner.locator(".shares")).to_contain_text(re.compile(r"Ana \d+%"))
        expect(banner.locator(".shares")).to_contain_text(re.compile(r"Bo \d+%"))
        expect(page.locator("#mines-left")).to_have_text("000")
        expect(page.locator('#board .cell[data-state="flagged"]')).to_have_count(10)
    shot(ana, screenshots, "won")


def test_keyboard_moves_focus_reveals_and_flags(new_context):
    page = new_context().new_page()
    create_room(page, "Kim")
    cell(page, 0, 0).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    expect(cell(page, 1, 1)).to_be_focused()

    page.keyboard.press("f")
    expect(cell(page, 1, 1)).to_have_attribute("data-state", "flagged")
    expect(cell(page, 1, 1)).to_be_focused()
    page.keyboard.press("Enter")  # a flag protects its cell
    page.keyboard.press("F")
    expect(cell(page, 1, 1)).to_have_attribute("data-state", "hidden")

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(cell(page, 3, 3)).to_be_focused()
    page.keyboard.press("Enter")
    expect(cell(page, 3, 3)).to_have_attribute("data-state", "revealed")
    page.keyboard.press("ArrowLeft")
    expect(cell(page, 2, 3)).to_be_focused()
    for _ in range(5):
        page.keyboard.press("ArrowUp")  # stops at the edge
    expect(cell(page, 2, 0)).to_be_focused()


def test_room_fits_a_phone_screen(new_context, screenshots):
    page = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    create_room(page, "Mo")
    page.locator("#cell-4-4").tap()
    expect(cell(page, 4, 4)).to_have_attribute("data-state", "revealed")
    board = page.locator("#board").bounding_box()
    assert board is not None
    assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, screenshots, "phone", full_page=True)
