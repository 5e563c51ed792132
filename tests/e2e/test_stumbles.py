"""What players stumbled on (issue 35, point 5), in Chromium: each test plays the moment a
player met and checks what the page shows then, where only a browser can tell (computed styles,
boxes inside the window, what a long press does). Screenshots (under `make screenshot`): laptop
1280x800, phone 390x844, light and dark."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from games.rooms import signals
from tests.helpers.e2e.site import screenshot

pytestmark = [pytest.mark.e2e]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


AXE = Axe()


def blocking_violations(page: Page) -> list[str]:
    """axe's critical and serious findings on the page as it is now."""
    found = AXE.run(page).response["violations"]
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in {"critical", "serious"}]


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


def shot(page: Page, screenshots, name: str, full_page: bool = False) -> None:
    page.mouse.move(0, 0)
    screenshot(page, screenshots / f"{name}.png", animations="disabled", full_page=full_page)


def create_race(page: Page, nickname: str) -> str:
    page.goto("/")
    page.locator('input[name="game"][value="minesweeper"]').check()
    page.locator('input[name="mode"][value="race"]').check()
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.locator("#invite-link").input_value()


def join(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name=re.compile("Join")).click()
    live(page)


def inside_window(page: Page, selector: str) -> bool:
    """Whether the element's whole box is inside the window as it is scrolled now."""
    return page.evaluate(
        """(selector) => {
            const box = document.querySelector(selector).getBoundingClientRect();
            return box.height > 0 && box.top >= 0 && box.left >= 0
                && box.bottom <= innerHeight && box.right <= innerWidth;
        }""",
        selector,
    )


# --- race mini-boards: a flag looks like a flag ---------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_flag_on_a_race_mini_board_is_drawn_as_the_flag_not_a_red_mine(
    new_context, screenshots, scheme
):
    ana = new_context(color_scheme=scheme, viewport=LAPTOP).new_page()
    invite = create_race(ana, "Ana")
    bo = new_context(color_scheme=scheme, viewport=LAPTOP).new_page()
    join(bo, invite, "Bo")
    ana.get_by_role("button", name="Start race").click()
    for page in (ana, bo):
        expect(page.locator("#race")).to_have_attribute("data-phase", "racing", timeout=10_000)
    # A no-guess race opens with cells revealed: Bo flags the first one still hidden.
    hidden = bo.locator('#board .cell[data-state="hidden"]').first
    x, y = hidden.get_attribute("data-x"), hidden.get_attribute("data-y")
    bo.locator(f"#cell-{x}-{y}").click(button="right")
    expect(bo.locator(f"#cell-{x}-{y}")).to_have_attribute("data-state", "flagged")
    # Out of the race, Ana sees Bo's board in full: his flag among its cells.
    ana.get_by_role("button", name="Give up", exact=True).click()
    ana.get_by_role("button", name="Yes, give up").click()
    flag = ana.locator('#board-1 [data-state="flagged"]')
    expect(flag).to_have_count(1)
    look = flag.evaluate(
        """(cell) => {
            const style = getComputedStyle(cell);
            const danger = getComputedStyle(document.documentElement).getPropertyValue("--danger");
            const probe = document.createElement("i");
            probe.style.setProperty("background-color", danger);
            document.body.append(probe);
            const red = getComputedStyle(probe).backgroundColor;
            probe.remove();
            return { image: style.backgroundImage, colour: style.backgroundColor, red,
                     shadow: style.boxShadow };
        }"""
    )
    assert "svg" in look["image"], look  # the flag drawing the boards and replays use
    assert look["colour"] != look["red"], look
    assert look["red"] not in look["shadow"], look  # no red ring around it either
    shot(ana, screenshots, f"stumbles-race-mini-flag-{scheme}", full_page=True)


# --- helpers for co-op and Flags rooms ------------------------------------------------------------


def create_coop(page: Page, nickname: str, preset: str = "beginner") -> str:
    page.goto("/")
    page.get_by_label("Your nickname").fill(nickname)
    page.locator(f'input[name="preset"][value="{preset}"]').check()
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.url


def create_custom(page: Page, nickname: str, width: int, height: int, mines: int) -> str:
    page.goto("/")
    page.get_by_label("Your nickname").fill(nickname)
    page.locator('input[name="preset"][value="custom"]').check()
    page.locator('input[name="width"]').fill(str(width))
    page.locator('input[name="height"]').fill(str(height))
    page.locator('#minesweeper-fields input[name="mines"]').fill(str(mines))
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.url


def create_flags(page: Page, nickname: str, o: str = "human") -> str:
    page.goto("/")
    page.locator('input[name="game"][value="flags"]').check()
    page.get_by_label("Your nickname").fill(nickname)
    page.locator('#flags-fields select[name="o"]').select_option(o)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.url


def join_as(page: Page, invite: str, nickname: str) -> None:
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name=re.compile("Join")).click()
    live(page)


def gap_between(page: Page, first: str, second: str) -> float:
    """The distance in px between two elements' boxes (0 when they touch or overlap)."""
    return page.evaluate(
        """([first, second]) => {
            const a = document.querySelector(first).getBoundingClientRect();
            const b = document.querySelector(second).getBoundingClientRect();
            const dx = Math.max(0, a.left - b.right, b.left - a.right);
            const dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
            return Math.hypot(dx, dy);
        }""",
        [first, second],
    )


# --- errors beside what caused them, inside the window ------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_hint_before_the_first_click_says_why_beside_the_hint_button(
    new_context, screenshots, scheme
):
    page = new_context(color_scheme=scheme, viewport=LAPTOP).new_page()
    create_coop(page, "Ana", "intermediate")
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#room-error")).to_contain_text("first click is always safe")
    assert inside_window(page, "#room-error")
    assert gap_between(page, "#room-error", ".hint-button") <= 12
    shot(page, screenshots, f"stumbles-hint-error-{scheme}")
    page.keyboard.press("Escape")  # put away
    expect(page.locator("#room-error")).to_be_empty()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_not_your_turn_in_flags_shows_beside_the_cell_inside_the_window(
    new_context, screenshots, viewport
):
    ana = new_context(viewport=LAPTOP).new_page()
    invite = create_flags(ana, "Ana")
    bo = new_context(viewport=viewport).new_page()
    join_as(bo, invite, "Bo")
    expect(bo.locator("#game-meta")).to_have_attribute("data-turn", "X")
    bo.locator("#cell-3-3").click()  # Bo plays O: X moves first
    expect(bo.locator("#room-error")).to_contain_text("It is not your turn")
    assert inside_window(bo, "#room-error")
    assert gap_between(bo, "#room-error", "#cell-3-3") <= 12
    name = "laptop" if viewport == LAPTOP else "phone"
    shot(bo, screenshots, f"stumbles-flags-not-your-turn-{name}")


def test_a_muted_players_refused_line_stays_in_the_box_with_the_error_beside_it(
    new_context, screenshots
):
    ana = new_context(viewport=LAPTOP).new_page()
    invite = create_coop(ana, "Ana")
    bo = new_context(viewport=LAPTOP).new_page()
    join_as(bo, invite, "Bo")
    ana.reload()  # the host's menu lists the seats as they were when it was drawn
    live(ana)
    ana.locator("details.host-menu summary").click()
    ana.get_by_role("button", name="Mute Bo").click()
    expect(ana.get_by_role("button", name="Unmute Bo")).to_be_visible()
    bo.locator("#chat-text").fill("Can I say something?")
    bo.locator("#chat-text").press("Enter")
    expect(bo.locator("#room-error")).to_contain_text("muted")
    expect(bo.locator("#chat-text")).to_have_value("Can I say something?")
    assert inside_window(bo, "#room-error")
    assert gap_between(bo, "#room-error", "#chat-text") <= 12
    shot(bo, screenshots, "stumbles-muted-chat")


# --- a kicked spectator reads one message -------------------------------------------------------


@pytest.fixture
def expected_console_errors() -> re.Pattern[str]:
    """A kicked spectator's reload answers 403, and the browser logs that, rightly."""
    return re.compile(r"Failed to load resource: the server responded with .* 40[034]")


def test_a_kicked_spectator_reads_why_once_not_disconnected_beside_it(new_context, screenshots):
    ana = new_context(viewport=LAPTOP).new_page()
    invite = create_coop(ana, "Ana")
    cy = new_context(viewport=LAPTOP).new_page()
    cy.goto(invite + "watch/")
    live(cy)
    cy.locator("#chat-text").fill("hello")
    cy.locator("#chat-text").press("Enter")
    expect(ana.locator("#chat-spectators .chat-message")).to_have_count(1)
    ana.locator("details.host-menu summary").click()
    ana.locator("#host-menu").get_by_role("button", name=re.compile("^Kick Spectator")).click()
    connection = cy.locator("#connection")
    expect(connection).to_have_attribute("data-state", "closed")
    expect(connection).to_contain_text("The host removed you from this room")
    expect(cy.locator("#room-error")).to_be_empty()
    expect(cy.get_by_text("Disconnected")).to_have_count(0)
    assert inside_window(cy, "#connection")
    shot(cy, screenshots, "stumbles-kicked-spectator")


# --- boards that fit: Flags on a phone, Fit in both directions, tap-sized cells --------------------

BOARD_BOX = """() => {
    const board = document.getElementById("board").getBoundingClientRect();
    const scroller = document.querySelector(".board-scroll");
    const cell = document.querySelector("#board .cell").getBoundingClientRect();
    return {
        width: board.width, height: board.height, cell: cell.width,
        pans: scroller.scrollWidth - scroller.clientWidth,
        page: document.documentElement.scrollWidth, viewport: innerWidth, tall: innerHeight,
    };
}"""
TAP_MIN_PX = 24
REACTION_PACE_MS = 1000 * signals.PER_PLAYER.window / signals.PER_PLAYER.count + 100
"""Between two reactions of one person: inside the server's budget (games/rooms/signals.py) in
either shape. With Redis the budget is a moving window (four in four seconds, docs/operations.md
"Limits"), so five a quarter second apart would lose the fifth; a second apart they all land."""


def phone_page(new_context, scheme: str = "light") -> Page:
    return new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, color_scheme=scheme
    ).new_page()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_flags_on_a_phone_pans_its_tap_sized_board_and_has_zoom(new_context, screenshots, scheme):
    page = phone_page(new_context, scheme)
    create_flags(page, "Mo", o="easy")
    box = page.evaluate(BOARD_BOX)
    assert box["cell"] >= TAP_MIN_PX, box
    assert box["page"] <= box["viewport"], box  # the page never scrolls sideways
    last = page.locator("#cell-15-0")
    last.scroll_into_view_if_needed()  # the last column is reachable: the board pans
    edge = last.bounding_box()
    assert edge["x"] >= 0 and edge["x"] + edge["width"] <= PHONE["width"], edge
    zoom_in = page.get_by_role("button", name="Zoom in")
    expect(zoom_in).to_be_visible()
    zoom_in.tap()
    assert page.evaluate(BOARD_BOX)["cell"] > box["cell"] * 1.4
    page.get_by_role("button", name="Fit board").tap()
    assert page.evaluate(BOARD_BOX)["cell"] == pytest.approx(box["cell"], abs=0.5)
    shot(page, screenshots, f"stumbles-flags-phone-{scheme}")
    assert not blocking_violations(page)


def test_flags_on_a_laptop_fits_whole_with_fit_pressed(new_context):
    page = new_context(viewport=LAPTOP).new_page()
    create_flags(page, "Mo", o="easy")
    box = page.evaluate(BOARD_BOX)
    assert box["pans"] <= 0, box
    expect(page.get_by_role("button", name="Fit board")).to_have_attribute("aria-pressed", "true")


def test_fit_shows_a_fifty_by_fifty_board_whole_width_and_height(new_context, screenshots):
    page = new_context(viewport={"width": 1366, "height": 768}).new_page()
    create_custom(page, "Ana", 50, 50, 300)
    fit = page.get_by_role("button", name="Fit board")
    expect(fit).to_have_attribute("aria-pressed", "false")  # taller than the window: it scrolls
    expect(fit).to_be_enabled()
    fit.click()
    expect(fit).to_have_attribute("aria-pressed", "true")
    box = page.evaluate(BOARD_BOX)
    assert box["pans"] <= 0 and box["width"] <= box["viewport"], box
    assert box["height"] <= box["tall"], box
    assert inside_window(page, "#board")
    shot(page, screenshots, "stumbles-fifty-by-fifty-fit")


def test_expert_on_a_phone_keeps_tap_sized_cells_and_pans(new_context, screenshots):
    page = phone_page(new_context)
    create_coop(page, "Mo", "expert")
    box = page.evaluate(BOARD_BOX)
    assert box["cell"] >= TAP_MIN_PX and box["pans"] > 0, box
    expect(page.get_by_role("button", name="Fit board")).to_be_disabled()
    assert page.evaluate(BOARD_BOX)["cell"] >= TAP_MIN_PX
    shot(page, screenshots, "stumbles-expert-phone")


def test_a_long_press_flags_at_once_and_the_ping_button_pings(new_context):
    ana = phone_page(new_context)
    invite = create_coop(ana, "Ana")
    bo = new_context(viewport=LAPTOP).new_page()
    join_as(bo, invite, "Bo")
    target = ana.locator("#cell-4-4")
    box = target.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    cdp = ana.context.new_cdp_session(ana)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    expect(target).to_have_attribute("data-state", "flagged")  # while the finger is still down
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(bo.locator("#cell-4-4")).to_have_attribute("data-state", "flagged")
    ana.get_by_role("button", name="Ping").tap()
    ana.locator("#cell-6-6").tap()
    expect(bo.locator('#signals .ping[data-x="6"][data-y="6"]')).to_have_count(1)
    expect(ana.locator("#cell-6-6")).to_have_attribute("data-state", "hidden")


# --- reactions: in their roster row, and near the board -------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_five_reactions_keep_the_name_in_its_row_and_show_by_the_board(
    new_context, screenshots, scheme
):
    ana = new_context(viewport=LAPTOP, color_scheme=scheme).new_page()
    invite = create_coop(ana, "Ana")
    bo = new_context(viewport=LAPTOP, color_scheme=scheme).new_page()
    join_as(bo, invite, "Bo")
    for emote in ["waving", "laughing", "wow", "thumbs up", "applause"]:
        bo.get_by_role("button", name=f"React: {emote}").click()
        # Each shows a few seconds: on a loaded machine the first may be gone by the fifth, so
        # the newest is checked, not the count.
        newest = ana.locator('#signals .reaction[data-seat="1"]').last
        expect(newest).to_contain_text(emote)
        bo.wait_for_timeout(REACTION_PACE_MS)  # a person's pace, inside the server's budget
    row = ana.locator('#roster .roster-player[data-seat="1"]')
    expect(row.locator(".reaction-badge")).to_have_count(1)  # the newest alone
    name, box = row.locator(".name").bounding_box(), row.bounding_box()
    assert (
        name["width"] > 0
        and name["x"] >= box["x"]
        and name["x"] + name["width"] <= box["x"] + box["width"]
    )
    near = ana.locator(".board-reactions .board-reaction")
    expect(near.first).to_be_visible()
    expect(near.first).to_contain_text("Bo")
    assert gap_between(ana, ".board-reactions", "#board") <= 12
    shot(ana, screenshots, f"stumbles-reactions-{scheme}")


# --- the spectator's "Want to play?" card ----------------------------------------------------------


def test_a_spectators_want_to_play_card_offers_the_invite_not_the_watch_link(
    new_context, screenshots
):
    ana = new_context(viewport=LAPTOP).new_page()
    invite = create_coop(ana, "Ana")
    cy = new_context(viewport=LAPTOP).new_page()
    cy.goto(invite + "watch/")
    live(cy)
    card = cy.locator(".invite")
    expect(card.get_by_role("heading")).to_have_text("Want to play?")
    expect(card.locator("#invite-link")).to_have_value(invite)
    expect(card.locator('a[href$="/watch/"]')).to_have_count(0)
    card.get_by_role("link", name="Join as a player").click()
    expect(cy.get_by_label("Nickname")).to_be_visible()
    shot(cy, screenshots, "stumbles-want-to-play")


# --- long names and mixed directions --------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_long_name_ends_in_an_ellipsis_and_arabic_chat_keeps_its_order(
    new_context, screenshots, scheme
):
    ana = new_context(viewport=LAPTOP, color_scheme=scheme).new_page()
    invite = create_coop(ana, "Ana")
    bo = new_context(viewport=LAPTOP, color_scheme=scheme).new_page()
    join_as(bo, invite, "Bartholomew Maximilianus")  # 24 characters, the most a name takes
    name = ana.locator('#roster .roster-player[data-seat="1"] .name')
    expect(name).to_have_text("Bartholomew Maximilianus")
    # Rosters are drawn anew as presence changes: the look reads the row in the page at that
    # moment (a replaced element reads as an empty style).
    expect(name).to_have_css("white-space", "nowrap")
    expect(name).to_have_css("text-overflow", "ellipsis")
    look = ana.evaluate(
        """() => {
            const n = document.querySelector('#roster .roster-player[data-seat="1"] .name');
            return { attached: n.isConnected, clipped: n.scrollWidth > n.clientWidth };
        }"""
    )
    assert look == {"attached": True, "clipped": True}, look

    bo.locator("#chat-text").fill("مرحبا hello 123")
    bo.locator("#chat-text").press("Enter")
    line = ana.locator("#chat-players .chat-message").last
    expect(line.locator(".chat-text")).to_have_text("مرحبا hello 123")
    for part in (".chat-text", ".chat-author"):
        bidi = line.locator(part).evaluate(
            "(e) => ({ dir: e.getAttribute('dir'), isolate: getComputedStyle(e).unicodeBidi })"
        )
        assert bidi["dir"] == "auto" and "isolate" in bidi["isolate"], (part, bidi)
    # The Arabic line reads right to left, inside a line that stays left to right.
    direction = line.locator(".chat-text").evaluate("(e) => getComputedStyle(e).direction")
    assert direction == "rtl"
    assert line.evaluate("(e) => getComputedStyle(e).direction") == "ltr"
    ana.locator("#chat").scroll_into_view_if_needed()
    shot(ana, screenshots, f"stumbles-names-and-directions-{scheme}")


# --- the custom-size form says every error at once ------------------------------------------------


def test_the_custom_size_form_shows_every_invalid_fields_error_at_once(new_context, screenshots):
    page = new_context(viewport=LAPTOP).new_page()
    page.goto("/")
    page.get_by_label("Your nickname").fill("Ana")
    page.locator('input[name="preset"][value="custom"]').check()
    page.locator('input[name="width"]').fill("99")
    page.locator('input[name="height"]').fill("1")
    page.locator('#minesweeper-fields input[name="mines"]').fill("0")
    page.get_by_role("button", name="Create room").click()
    for field in ("width", "height", "mines"):
        box = page.locator(f'#minesweeper-fields input[name="{field}"]')
        expect(box).to_have_attribute("aria-invalid", "true")
        error = page.locator(f"#{box.get_attribute('aria-describedby')}")
        expect(error).to_be_visible()
        expect(error).not_to_be_empty()
    expect(page).to_have_url(re.compile(r"/$"))  # nothing sent
    expect(page.locator('input[name="width"]')).to_be_focused()
    shot(page, screenshots, "stumbles-custom-form-errors")
    page.locator('input[name="width"]').fill("20")
    page.locator('input[name="height"]').fill("20")
    page.locator('#minesweeper-fields input[name="mines"]').fill("40")
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))


# --- figures on one line: the win time, IOE, the bot's name ---------------------------------------


def win_coop(page: Page, game_db, url: str) -> None:
    """Every safe cell of the room's board opened (the mines from the server's database)."""
    code = url.rstrip("/").rsplit("/", 1)[1]
    page.locator("#cell-4-4").click()
    expect(page.locator("#cell-4-4")).to_have_attribute("data-state", "revealed")
    mines = set(game_db.mines(code))
    for y in range(9):
        for x in range(9):
            target = page.locator(f"#cell-{x}-{y}")
            if (x, y) not in mines and target.get_attribute("data-state") == "hidden":
                target.click()
                expect(target).to_have_attribute("data-state", "revealed")
    expect(page.locator("#board")).to_have_attribute("data-status", "won")


ONE_LINE = """(e) => {
    const rects = [...e.getClientRects()];
    return { lines: new Set(rects.map((r) => Math.round(r.top))).size, height: e.getBoundingClientRect().height,
             line: parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.3 };
}"""


@pytest.mark.parametrize(
    ("viewport", "scheme"), [(LAPTOP, "light"), (PHONE, "dark")], ids=["laptop", "phone-dark"]
)
def test_the_win_time_stays_on_the_banners_line_and_ioe_on_the_replays(
    new_context, game_db, screenshots, viewport, scheme
):
    page = new_context(viewport=viewport, color_scheme=scheme).new_page()
    url = create_coop(page, "Ana")
    win_coop(page, game_db, url)
    title = page.locator("#banner .banner-title")
    expect(title.locator(".banner-time")).to_contain_text(" s")
    name = "laptop" if viewport == LAPTOP else "phone"
    shot(page, screenshots, f"stumbles-win-banner-{name}-{scheme}")
    look = title.evaluate(ONE_LINE)
    assert look["height"] < look["line"] * 1.6, look  # "Board cleared! 8.56 s" is one line

    page.goto(url + "games/1/")
    figures = page.locator(".figures > div")
    expect(figures.last).to_contain_text("IOE")
    for figure in figures.all():
        for part in ("dt", "dd"):
            box = figure.locator(part).evaluate(ONE_LINE)
            assert box["lines"] == 1 and box["height"] < box["line"] * 1.6, (part, box)
    tops = {round(figure.bounding_box()["y"]) for figure in figures.all()}
    assert len(tops) == 1, tops  # one row: IOE did not fit and took a row of its own
    ioe = figures.last.bounding_box()
    assert ioe["x"] + ioe["width"] <= viewport["width"]
    shot(page, screenshots, f"stumbles-replay-figures-{name}-{scheme}", full_page=True)
    assert not blocking_violations(page)


def test_the_race_card_shows_the_solver_bots_whole_name(new_context, screenshots):
    ana = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    create_race(ana, "Ana")
    ana.get_by_role("button", name="Race the Solver bot").click()
    expect(ana.locator("#roster .roster-bot")).to_have_count(1)
    ana.get_by_role("button", name="Start race").click()
    expect(ana.locator("#board")).to_have_attribute("data-status", "playing")
    ana.get_by_role("button", name="Give up", exact=True).tap()
    ana.get_by_role("button", name="Yes, give up").tap()
    bot = ana.locator(".rival:has(.badge) .rival-head .name")
    expect(bot).to_have_text("Solver bot")
    # The bot plays on, so its card is drawn anew many times a second: each look reads the card
    # in the page at that moment, never an element a later message has replaced.
    card = """(what) => {
        const name = document.querySelector(".rival:has(.badge) .rival-head .name");
        if (what === "scroll") name.closest(".rival").scrollIntoView({ block: "center" });
        return { shown: name.isConnected && name.clientWidth > 0,
                 clipped: name.scrollWidth > name.clientWidth };
    }"""
    look = ana.evaluate(card, "look")
    assert look["shown"] and not look["clipped"], look
    ana.evaluate(card, "scroll")
    shot(ana, screenshots, "stumbles-race-bot-card")
