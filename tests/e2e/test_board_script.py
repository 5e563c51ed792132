"""One board script (issue 27): the bugs the per-kind copies of the board code had, each played in
Chromium. A long press on a phone flags once (the copy in race.js lacked the contextmenu
guard, so the phone's own contextmenu unflagged it); a racer who scrolled away from her board is
not scrolled back by the messages that follow (race.js put the focus back with scrolling after
every message, which moves the view whenever her focused cell was swapped meanwhile); a replay played at 8x rewrites
its address a few times a second at most (Safari throws past 100 history.replaceState calls in
30 s, which stopped playback with the button still showing "playing")."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.e2e.flags import a_number, hidden_mines
from tests.helpers.e2e.flags import cell as flags_cell
from tests.helpers.e2e.flags import create_room as create_flags
from tests.helpers.e2e.keyboard import focused_cell, tab_to
from tests.helpers.e2e.race import create_race, join, live, safe_cells
from tests.helpers.e2e.rooms import PHONE, cell, create_room
from tests.helpers.e2e.touch import touch

pytestmark = pytest.mark.e2e

URL_WRITES_PER_SECOND = 3
"""What the replay may write to the address bar in any one second: Safari allows 100 in 30 s."""


def start_race(host: Page, racers: list[Page]) -> None:
    host.get_by_role("button", name="Start race").click()
    for page in racers:
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing")
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")


def a_hidden_cell(page: Page) -> tuple[int, int]:
    hidden = page.locator('#board .cell[data-state="hidden"]').first
    return int(hidden.get_attribute("data-x") or 0), int(hidden.get_attribute("data-y") or 0)


ANDROID_CONTEXTMENU = """(cell) => cell.dispatchEvent(
    new MouseEvent("contextmenu", {bubbles: true, cancelable: true}))"""
"""Chrome on Android fires contextmenu while a finger rests on an element (about 400-500 ms
in); Chromium on Linux does not, so the tests fire it where Android does, the finger still down."""

LONG_PRESS_HOLD_MS = 700
"""How long the finger rests: past the page's 450 ms long press."""


def phone_on_a_board(new_context, kind: str) -> Page:
    """A player on a phone, on a co-op board or racing (a rival on a laptop), the board live."""
    page = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    if kind == "co-op":
        create_room(page, "Ana")
        return page
    invite = create_race(page, "Ana")
    join(new_context().new_page(), invite, "Bo")
    start_race(page, [page])
    return page


@pytest.mark.parametrize("contextmenu", ["after the long press", "before the long press"])
@pytest.mark.parametrize("kind", ["race", "co-op"])
def test_a_long_press_on_a_phone_leaves_one_flag(new_context, kind, contextmenu):
    ana = phone_on_a_board(new_context, kind)
    pressed = a_hidden_cell(ana)
    target = cell(ana, *pressed)
    target.scroll_into_view_if_needed()
    cdp = ana.context.new_cdp_session(ana)
    touch(cdp, target, "touchStart")
    if contextmenu == "before the long press":
        target.evaluate(ANDROID_CONTEXTMENU)
        ana.wait_for_timeout(LONG_PRESS_HOLD_MS)  # the finger stays down past the long press
    else:
        expect(target).to_have_attribute("data-state", "flagged")  # the press flagged, at once
        target.evaluate(ANDROID_CONTEXTMENU)
    touch(cdp, target, "touchEnd")
    expect(target).to_have_attribute("data-state", "flagged")
    expect(ana.get_by_role("menu")).to_have_count(0)  # one press, one flag: no menu (issue 35)
    # A later move's answer comes after the answer to any second flag the press sent.
    last_hidden = ana.locator('#board .cell[data-state="hidden"]').last
    other = ana.locator(f"#{last_hidden.get_attribute('id')}")
    other.focus()
    ana.keyboard.press("f")
    expect(other).to_have_attribute("data-state", "flagged")
    expect(target).to_have_attribute("data-state", "flagged")


class HeldAnswers:
    """The page's socket through Playwright's router, so a test can hold what the server sends
    (a move's answer still on its way) and let it through later."""

    def __init__(self, page: Page) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.routes: list = []
        page.route_web_socket(re.compile(r"/ws/"), self.route)

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        self.routes.append(ws)
        server.on_message(
            lambda message: self.held.append(message) if self.holding else ws.send(message)
        )

    def release(self) -> None:
        self.holding = False
        for message in self.held:
            self.routes[-1].send(message)
        self.held.clear()


def test_a_racer_who_looks_away_is_not_scrolled_back_by_her_answer_or_a_rivals_move(
    new_context, game_db
):
    ana = new_context(viewport=PHONE).new_page()
    answers = HeldAnswers(ana)
    invite = create_race(ana, "Ana")
    code = invite.rstrip("/").rsplit("/", 1)[1]
    bo = new_context().new_page()
    join(bo, invite, "Bo")
    start_race(ana, [ana, bo])

    # Ana plays by keys, and scrolls down to Bo's board while her move's answer is on its way.
    x, y = safe_cells(game_db, code, 0)[0]
    cell(ana, 0, 0).focus()
    for key, steps in (("ArrowRight", x), ("ArrowDown", y)):
        for _ in range(steps):
            ana.keyboard.press(key)
    expect(cell(ana, x, y)).to_be_focused()
    answers.holding = True
    ana.keyboard.press("Enter")
    ana.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    scrolled = ana.evaluate("window.scrollY")
    assert scrolled > 0, "the race page should be taller than a phone's screen"
    assert not _in_view(ana), "the focused cell should be out of the window"
    answers.release()
    expect(cell(ana, x, y)).not_to_have_attribute("data-state", "hidden")
    expect(cell(ana, x, y)).to_be_focused()  # the swapped-in cell has the focus again
    assert ana.evaluate("window.scrollY") == scrolled

    for bx, by in safe_cells(game_db, code, 1)[:2]:
        bo.locator(f"#cell-{bx}-{by}").click()
        expect(bo.locator(f"#cell-{bx}-{by}")).not_to_have_attribute("data-state", "hidden")
    expect(ana.locator("#board-1")).not_to_have_attribute("data-progress", "0")
    live(ana)
    assert ana.evaluate("window.scrollY") == scrolled
    expect(cell(ana, x, y)).to_be_focused()


def _in_view(page: Page) -> bool:
    """Whether the focused element is inside the window."""
    return page.evaluate(
        """() => {
            const box = document.activeElement.getBoundingClientRect();
            return box.bottom > 0 && box.top < window.innerHeight;
        }"""
    )


def test_a_replay_at_8x_rewrites_its_address_a_few_times_a_second_at_most(new_context):
    page = new_context().new_page()
    code = create_room(page, "Ana")
    # Forty flags and unflags make a long game to replay: at 8x its moves come milliseconds apart.
    target = cell(page, 0, 0)
    for n in range(40):
        target.click(button="right")
        expect(target).to_have_attribute("data-state", "flagged" if n % 2 == 0 else "hidden")
    page.add_init_script(
        """window.__urlWrites = [];
        const replaceState = History.prototype.replaceState;
        History.prototype.replaceState = function (...args) {
            window.__urlWrites.push(performance.now());
            return replaceState.apply(this, args);
        };"""
    )
    page.goto(f"/r/{code}/games/1/?move=0")
    replay = page.locator(".replay")
    expect(replay).to_have_attribute("data-ready", "true")
    moves = int(replay.get_attribute("data-moves") or 0)
    assert moves >= 40
    page.locator("#replay-speed").select_option("8")
    page.evaluate("window.__urlWrites = []")
    page.get_by_role("button", name="Play").click()
    expect(page.locator("#board")).to_have_attribute("data-k", str(moves))
    expect(page.get_by_role("button", name="Play")).to_have_attribute("data-playing", "false")
    # The address ends at the last move, however few times it was written on the way.
    expect(page).to_have_url(re.compile(rf"[?&]move={moves}$"))
    expect(page.locator("#replay-share")).to_have_value(re.compile(rf"[?&]move={moves}$"))
    writes = page.evaluate("window.__urlWrites")
    assert writes, "playing should move the address along"
    busiest = max(sum(1 for t in writes if start <= t < start + 1000) for start in writes)
    assert busiest <= URL_WRITES_PER_SECOND, f"{busiest} address writes in one second"


def test_flags_plays_by_keyboard_alone(new_context, game_db):
    """Flags takes board.js's keys too: Tab onto the board, arrows, Enter claims a mine (the turn
    stays), Enter on a number passes the turn."""
    ana = new_context().new_page()
    code = create_flags(ana, "Ana", x="human", o="human")
    bo = new_context().new_page()
    bo.goto(ana.locator("#invite-link").input_value())
    bo.get_by_label("Nickname").fill("Bo")
    bo.get_by_role("button", name="Join game").click()
    expect(ana.locator("#status")).to_contain_text("Your turn")

    tab_to(ana, "#board .cell")
    for target in (hidden_mines(game_db, code)[0], a_number(game_db, code)):
        at = focused_cell(ana)
        for key, steps in (
            ("ArrowRight", target[0] - at[0]),
            ("ArrowLeft", at[0] - target[0]),
            ("ArrowDown", target[1] - at[1]),
            ("ArrowUp", at[1] - target[1]),
        ):
            for _ in range(max(0, steps)):
                ana.keyboard.press(key)
        expect(flags_cell(ana, target)).to_be_focused()
        ana.keyboard.press("Enter")
        expect(flags_cell(ana, target)).not_to_have_attribute("data-state", "hidden")
        expect(flags_cell(ana, target)).to_be_focused()  # the swapped-in cell has it again
    expect(ana.locator("#score-X")).to_have_text("1")
    expect(bo.locator("#status")).to_contain_text("Your turn")
