"""What a player sees when the live path breaks: a missed message, a server restart, Redis down.

The gap, flood (1008) and consumer-error tests use the session's Daphne. The others, and
the close codes a server gives by going away (1006, 1012) or coming back without the room
(4404), need servers they can stop: two Daphnes of their own (tests/helpers/servers.py) sharing a fresh
database and a private redis-server, so the page's server can go away while moves go on through
the other one, and Redis can die without touching the shared one. Every wait is an auto-waiting
`expect` (on attributes the test scripts set, never `wait_for_function`: its polling evaluates a
string in the page, which the Content-Security-Policy refuses).
"""

import json
import re
import signal
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from games.engine import minesweeper as engine
from games.protocol.flood import FLOOD_REASON
from tests.helpers import servers
from tests.helpers.e2e.site import EXPECTED_CONSOLE_ERRORS, screenshot
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne, GameDatabase, RedisServer

pytestmark = [pytest.mark.e2e, pytest.mark.long]  # started first under `make test`

BACK_MS = 15_000
"""Reconnecting waits up to 5 s between tries (live.js), plus a server's start."""

DROP_NEXT_MOVE = """() => {
    // As if the channel layer had lost the next move message: nothing in the page sees it.
    const room = document.querySelector(".room");
    room.addEventListener("htmx:wsBeforeMessage", function drop(event) {
        const meta = /id="game-meta"[^>]*data-version="(\\d+)"/.exec(event.detail.message);
        if (!meta || event.detail.message.includes('id="board"')) return;
        room.removeEventListener("htmx:wsBeforeMessage", drop, true);
        room.dataset.droppedVersion = meta[1];  // for `expect`, which polls without eval
        event.preventDefault();
        event.stopImmediatePropagation();
    }, true);
}"""

RECORD_CONNECTION = """() => {
    // Every state the connection line goes through, however briefly.
    const line = document.getElementById("connection");
    window.connectionStates = [];
    new MutationObserver(() => {
        window.connectionStates.push({state: line.dataset.state, text: line.textContent});
        if (line.dataset.state === "reconnecting" && line.textContent === "Reconnecting…") {
            document.body.dataset.sawReconnecting = "true";  // for `expect`, as above
        }
    }).observe(line, {attributes: true, childList: true, characterData: true, subtree: true});
}"""

BOARD = """() => Object.fromEntries([...document.querySelectorAll("#board .cell")].map(
    (c) => [`${c.dataset.x},${c.dataset.y}`, [c.dataset.state, c.dataset.count ?? null]]))"""


@pytest.fixture
def expected_console_errors() -> re.Pattern[str]:
    """Chromium logs every refused websocket handshake and dropped connection as an error, and
    htmx logs its htmx:wsError event itself (as "[object Event]")."""
    return re.compile(
        EXPECTED_CONSOLE_ERRORS.pattern
        + r"|WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/r/[\w-]+/' failed"
        + r"|^\[object Event\]$"
    )


# --- helpers ------------------------------------------------------------------------------------


def api(base_url: str, path: str, body: dict, token: str = "") -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base_url + path, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.loads(response.read())


def create_room(page: Page, base_url: str, nickname: str = "Ana") -> str:
    page.goto(base_url + "/")
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    return page.locator(".room").get_attribute("data-room")


def cell(page: Page, x: int, y: int):
    return page.locator(f"#cell-{x}-{y}")


def stored_board(game_db: GameDatabase, code: str) -> dict[str, list]:
    """The stored game as every player may see it, keyed like the page's `BOARD`."""
    state = engine.from_dict(game_db.state(code))
    return {
        f"{x},{y}": [shown.value, str(count) if shown is engine.CellState.REVEALED else None]
        for y, row in enumerate(engine.public_board(state))
        for x, (shown, count) in enumerate(row)
    }


def hidden_cells(game_db: GameDatabase, code: str) -> list[tuple[int, int]]:
    board = stored_board(game_db, code)
    return [
        tuple(map(int, key.split(","))) for key, (state, _) in board.items() if state == "hidden"
    ]


# --- a missed message ---------------------------------------------------------------------------


def test_a_page_that_misses_a_move_asks_for_a_snapshot_and_ends_up_right(
    new_context, live_server_url, game_db
):
    page = new_context().new_page()
    sent: list[str] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    code = create_room(page, live_server_url)
    bot = api(live_server_url, f"/api/rooms/{code}/join", {"name": "Bot"})["player_token"]

    def move(action: str, x: int, y: int) -> None:
        api(live_server_url, f"/api/rooms/{code}/moves", {"action": action, "x": x, "y": y}, bot)

    move("reveal", 4, 4)
    expect(page.locator("#board")).to_have_attribute("data-version", "1")
    first, second, third = hidden_cells(game_db, code)[:3]

    page.evaluate(DROP_NEXT_MOVE)
    move("flag", *first)
    expect(page.locator(".room")).to_have_attribute("data-dropped-version", "2")
    expect(cell(page, *first)).to_have_attribute("data-state", "hidden")  # it never arrived
    assert not any('"sync"' in frame for frame in sent)

    move("flag", *second)
    move("flag", *third)
    expect(page.locator("#board")).to_have_attribute("data-version", "4")
    assert any(json.loads(frame).get("action") == "sync" for frame in sent)
    expect(cell(page, *first)).to_have_attribute("data-state", "flagged")
    assert page.evaluate(BOARD) == stored_board(game_db, code)
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


# --- servers that go away ---------------------------------------------------------------------


@dataclass
class Stack:
    """A private Redis and two Daphnes on one fresh database: the page talks to `a`."""

    redis: RedisServer
    a: Daphne
    b: Daphne
    db: GameDatabase

    def ensure_running(self) -> None:
        for process in (self.redis, self.a, self.b):
            if not process.running:
                process.start()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder: Path = tmp_path_factory.mktemp("reliability")
    try:
        redis = RedisServer(folder / "redis.log")
        env = servers.migrated_database_env(folder, "reliability", REDIS_URL=redis.url)
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    stack = Stack(
        redis, Daphne(env, folder / "a.log"), Daphne(env, folder / "b.log"), GameDatabase(env)
    )
    try:
        stack.ensure_running()
        yield stack
    finally:
        for process in (stack.a, stack.b, stack.redis):
            process.stop()
        servers.drop_database(env)


def test_a_page_shows_reconnecting_while_its_server_restarts_and_catches_up(
    new_context, stack, screenshots
):
    stack.ensure_running()
    page = new_context().new_page()
    code = create_room(page, stack.a.url)
    bot = api(stack.b.url, f"/api/rooms/{code}/join", {"name": "Bot"})["player_token"]
    api(stack.b.url, f"/api/rooms/{code}/moves", {"action": "reveal", "x": 4, "y": 4}, bot)
    expect(page.locator("#board")).to_have_attribute("data-version", "1")
    page.evaluate(RECORD_CONNECTION)

    assert stack.a.stop(signal.SIGTERM) == 0
    expect(page.locator("body")).to_have_attribute("data-saw-reconnecting", "true")
    expect(page.locator("#connection")).to_be_visible()
    screenshot(page, screenshots / "reconnecting.png", animations="disabled")
    x, y = hidden_cells(stack.db, code)[0]
    api(stack.b.url, f"/api/rooms/{code}/moves", {"action": "flag", "x": x, "y": y}, bot)

    stack.a.start()
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=BACK_MS)
    expect(page.locator("#connection")).to_have_text("Live")
    expect(cell(page, x, y)).to_have_attribute("data-state", "flagged")
    expect(page.locator("#board")).to_have_attribute("data-version", "2")
    assert page.evaluate(BOARD) == stored_board(stack.db, code)
    states = page.evaluate("window.connectionStates.map((s) => s.state)")
    assert states[0] == "reconnecting" and states[-2:] == ["connecting", "live"], states


def test_a_page_says_live_updates_are_unavailable_while_redis_is_down(
    new_context, stack, screenshots
):
    stack.ensure_running()
    page = new_context().new_page()
    code = create_room(page, stack.a.url)
    bot = api(stack.b.url, f"/api/rooms/{code}/join", {"name": "Bot"})["player_token"]

    stack.redis.stop(signal.SIGKILL)
    line = page.locator("#connection")
    expect(line).to_have_attribute("data-state", "unavailable")
    expect(line).to_have_text("Live updates unavailable — retrying…")
    screenshot(page, screenshots / "live-unavailable.png", animations="disabled")
    # Moves still go in (the JSON API needs no Redis); the page cannot hear of them yet.
    moved = api(stack.b.url, f"/api/rooms/{code}/moves", {"action": "flag", "x": 0, "y": 0}, bot)
    assert moved["version"] == 1
    expect(cell(page, 0, 0)).to_have_attribute("data-state", "hidden")

    stack.redis.start()
    expect(line).to_have_attribute("data-state", "live", timeout=BACK_MS)
    expect(line).to_have_text("Live")
    expect(cell(page, 0, 0)).to_have_attribute("data-state", "flagged")
    expect(page.locator("#board")).to_have_attribute("data-version", "1")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_click_lost_with_a_killed_server_shows_pending_then_says_so(
    new_context, stack, screenshots, scheme
):
    """Issue 14, item 8: a move in flight when its process dies used to vanish silently."""
    stack.ensure_running()
    page = new_context(color_scheme=scheme).new_page()
    code = create_room(page, stack.a.url)
    cell(page, 4, 4).click()  # answered: the mark goes with the cell the answer replaces
    expect(page.locator("#board")).to_have_attribute("data-version", "1")
    expect(page.locator(".cell[data-pending]")).to_have_count(0)
    x, y = hidden_cells(stack.db, code)[0]

    # Frozen, then killed: the socket is open as far as the page knows, so the click goes out,
    # and nothing ever answers it.
    stack.a.process.send_signal(signal.SIGSTOP)
    cell(page, x, y).click()
    expect(cell(page, x, y)).to_have_attribute("data-pending", "true")
    screenshot(
        page.locator(".board-scroll"),
        screenshots / f"click-pending-{scheme}.png",
        animations="disabled",
    )
    stack.a.stop(signal.SIGKILL)
    stack.a.start()

    notice = page.locator("#click-lost")
    expect(notice).to_have_text(
        "Your last click did not reach the server — try again.", timeout=BACK_MS
    )
    expect(notice).to_have_attribute("aria-live", "polite")
    expect(page.locator(".cell[data-pending]")).to_have_count(0)
    expect(cell(page, x, y)).to_have_attribute("data-state", "hidden")
    screenshot(
        page.locator(".board-area, .room").first,
        screenshots / f"click-lost-{scheme}.png",
        animations="disabled",
    )

    cell(page, x, y).click()  # the same click again, with a live server, lands
    expect(cell(page, x, y)).not_to_have_attribute("data-state", "hidden")
    expect(page.locator(".cell[data-pending]")).to_have_count(0)


def test_a_click_made_while_the_server_is_down_is_dropped_not_played_later(new_context, stack):
    """Issue 25, item 5: such a click waited in htmx's queue and was played when the server came
    back, maybe 20 s later. Now it is dropped after a few seconds and the player told; the
    connection line shows without scrolling below an expert board, and nobody is "online"
    while the page cannot know."""
    stack.ensure_running()
    page = new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(stack.a.url + "/")
    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="expert"]').check()
    page.get_by_role("button", name="Create room").click()
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    code = page.locator(".room").get_attribute("data-room")
    cell(page, 15, 8).click()
    expect(page.locator("#board")).to_have_attribute("data-version", "1")
    me = page.locator('.roster-player[data-seat="0"]')
    expect(me).to_have_attribute("data-online", "true")
    (x, y), (x2, y2) = hidden_cells(stack.db, code)[:2]

    assert stack.a.stop(signal.SIGTERM) == 0
    line = page.locator("#connection")
    expect(line).to_have_attribute("data-state", re.compile("reconnecting|unavailable"))
    expect(line).to_be_in_viewport()
    expect(me).to_have_attribute("data-online", "unknown")
    expect(page.locator(".roster .presence", has_text="online")).to_have_count(0)
    cell(page, x, y).click()
    notice = page.locator("#click-lost")
    expect(notice).to_have_text("Not sent: connection lost — try again.")
    expect(notice).to_be_in_viewport()
    expect(page.locator(".cell[data-pending]")).to_have_count(0)

    stack.a.start()
    expect(line).to_have_attribute("data-state", "live", timeout=BACK_MS)
    expect(me).to_have_attribute("data-online", "true")  # the snapshot knows again
    cell(page, x2, y2).click(button="right")  # answered after anything sent before it
    expect(cell(page, x2, y2)).to_have_attribute("data-state", "flagged")
    expect(cell(page, x, y)).to_have_attribute("data-state", "hidden")
    assert stored_board(stack.db, code)[f"{x},{y}"][0] == "hidden"


# --- close codes, as live.js takes them (README "Close codes") ------------------------------------

CAPTURE_SOCKETS = """
    // The page's own sockets, so a test can send over the very socket htmx opened.
    window.roomSockets = [];
    window.WebSocket = class extends window.WebSocket {
        constructor(...args) {
            super(...args);
            window.roomSockets.push(this);
            // The first close code a page's socket saw, and its reason, for `expect` (a
            // failure names it).
            this.addEventListener("close", (event) => {
                document.documentElement.dataset.firstCloseReason ??= event.reason;
                document.documentElement.dataset.firstClose ??= String(event.code);
            });
        }
    };
"""


def test_a_server_that_dies_without_a_word_1006_is_retried_until_it_is_back(new_context, stack):
    stack.ensure_running()
    page = new_context().new_page()
    create_room(page, stack.a.url)
    page.evaluate(RECORD_CONNECTION)

    stack.a.stop(signal.SIGKILL)  # no close frame: the browser reports 1006
    line = page.locator("#connection")
    expect(line).not_to_have_attribute("data-state", "live")
    assert page.evaluate("window.connectionStates[0]") == {
        "state": "reconnecting",
        "text": "Reconnecting…",
    }
    stack.a.start()
    expect(line).to_have_attribute("data-state", "live", timeout=BACK_MS)
    states = page.evaluate("window.connectionStates.map((s) => s.state)")
    assert "closed" not in states, states


def test_a_room_gone_from_the_database_4404_ends_in_disconnected(new_context, stack):
    stack.ensure_running()
    page = new_context().new_page()
    code = create_room(page, stack.a.url)
    page.evaluate(RECORD_CONNECTION)
    # As if the room had been deleted: no room answers to its code any more.
    stack.db.execute("UPDATE games_room SET code = {p} WHERE code = {p}", f"gone-{code}", code)

    stack.a.restart()  # 1012, and the page reconnects to a server that knows no such room
    line = page.locator("#connection")
    expect(line).to_have_attribute("data-state", "closed", timeout=BACK_MS)
    expect(line).to_have_text("Disconnected — reload the page to rejoin")


def test_a_page_that_floods_its_socket_1008_shows_disconnected(new_context, live_server_url):
    context = new_context()
    context.add_init_script(CAPTURE_SOCKETS)
    page = context.new_page()
    create_room(page, live_server_url)
    page.evaluate(RECORD_CONNECTION)
    page.evaluate(
        """() => {
            const socket = window.roomSockets.at(-1);
            for (let i = 0; i < 60; i++) socket.send(JSON.stringify({action: "sync"}));
        }"""
    )
    expect(page.locator("html")).to_have_attribute("data-first-close", "1008")
    expect(page.locator("html")).to_have_attribute("data-first-close-reason", FLOOD_REASON)
    line = page.locator("#connection")
    expect(line).to_have_attribute("data-state", "closed")
    expect(line).to_have_text("Disconnected — reload the page to rejoin")
    states = page.evaluate("window.connectionStates.map((s) => s.state)")
    assert "reconnecting" not in states and page.evaluate("window.roomSockets.length") == 1


def test_an_error_inside_the_consumer_shows_an_error_and_the_page_stays_live(
    new_context, live_server_url, game_db
):
    page = new_context().new_page()
    code = create_room(page, live_server_url)
    page.evaluate(RECORD_CONNECTION)
    # A move log that already holds the next move: saving a move fails inside the consumer. The
    # sender hears that nothing changed, and the socket stays open (issue 14: it used to close
    # with 1011, skipping its cleanup).
    game = game_db.game(code)
    game_db.execute(
        "INSERT INTO games_move (game_id, seq, seat, action, x, y, cell, created_at)"
        " VALUES ({p}, {p}, 0, 'flag', 0, 0, 0, CURRENT_TIMESTAMP)",
        game["id"],
        game["version"] + 1,
    )

    cell(page, 4, 4).click()
    expect(page.locator("#room-error")).to_contain_text("Something went wrong")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(cell(page, 4, 4)).to_have_attribute("data-state", "hidden")
    assert "reconnecting" not in page.evaluate("window.connectionStates.map((s) => s.state)")
    assert game_db.game(code)["version"] == game["version"]
