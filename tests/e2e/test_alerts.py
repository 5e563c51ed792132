"""Alerts and unread lines in Chromium (DESIGN.md "Alerts"), two or three browser contexts a test:
the turn passing puts "(Your turn) " on the other player's tab title when they switched alerts on,
and nothing when off; the choice survives a reload; a race's countdown gives "(Race!) "; a line
naming someone gives "(1) "; each chat tab and the folded chat count unread lines
(`data-unread`) and go back to 0 once read; a hidden tab gets a browser notification. Axe on the
pages with the switches on and badges showing; screenshots at laptop and phone size, light and
dark.

A hidden tab is emulated: headless Chromium reports every page as visible, so the test overrides
`document.hidden` / `visibilityState` and fires `visibilitychange`, as the browser would. The
notification spy wraps the real `Notification` constructor (the permission is Playwright's)."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, expect

from tests.helpers.e2e.site import screenshot

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
BLOCKING = {"critical", "serious"}

NOTIFICATION_SPY = """(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.notificationsMade = [];
  window.Notification = new Proxy(Real, {
    construct(target, args) {
      window.notificationsMade.push({ title: args[0], body: (args[1] || {}).body });
      return Reflect.construct(target, args);
    },
  });
})();"""

HIDE = """(hidden) => {
  Object.defineProperty(document, "hidden", { value: hidden, configurable: true });
  Object.defineProperty(document, "visibilityState", {
    value: hidden ? "hidden" : "visible", configurable: true,
  });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def set_hidden(page: Page, hidden: bool) -> None:
    page.evaluate(HIDE, hidden)


def live(page: Page) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


def create(page: Page, game: str, nickname: str, **fields: str) -> str:
    """A room of `game` from the home page; returns its invite link."""
    page.goto("/")
    page.locator(f'input[name="game"][value="{game}"]').check()
    for name, value in fields.items():
        page.locator(f'#{game}-fields select[name="{name}"]').select_option(value)
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.locator("#invite-link").input_value()


def create_race(page: Page, nickname: str) -> str:
    page.goto("/")
    page.locator('input[name="game"][value="minesweeper"]').check()
    page.locator('input[name="mode"][value="race"]').check()
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/r/[\w-]+/$"))
    live(page)
    return page.locator("#invite-link").input_value()


def join(context: BrowserContext, invite: str, nickname: str) -> Page:
    page = context.new_page()
    page.goto(invite)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name=re.compile("Join")).click()
    live(page)
    return page


def two_players(new_context, game: str, **bo_context) -> tuple[Page, Page, str]:
    ana = new_context(reduced_motion="reduce", viewport=LAPTOP).new_page()
    fields = {"x": "human", "o": "human"} if game in ("tictactoe", "flags") else {}
    invite = create(ana, game, "Ana", **fields)
    bo = join(
        new_context(reduced_motion="reduce", **{"viewport": LAPTOP, **bo_context}), invite, "Bo"
    )
    return ana, bo, invite


def switch(page: Page, which: str) -> None:
    """Presses one of the alert switches and waits for it to say so."""
    button = page.locator(f'#alerts [data-alert="{which}"]')
    before = button.get_attribute("aria-pressed")
    button.click()
    expect(button).not_to_have_attribute("aria-pressed", before)


def say(page: Page, text: str) -> None:
    page.locator("#chat-text").fill(text)
    page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def tab(page: Page, channel: str):
    return page.locator(f"#chat-tab-{channel}")


def audit(page: Page, name: str, screenshots) -> None:
    """No critical or serious axe violation, light and dark; a screenshot of each."""
    failures = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        found = Axe().run(page).response["violations"]
        screenshot(page, screenshots / f"alerts-{name}-{scheme}.png", animations="disabled")
        failures += [
            f"{scheme}: {v['id']} {v['help']} {[n['target'] for n in v['nodes']]}"
            for v in found
            if v["impact"] in BLOCKING
        ]
    page.emulate_media(color_scheme="light", reduced_motion="reduce")
    assert not failures, "\n".join(failures)


def test_the_turn_passing_titles_the_other_tab_only_when_switched_on(new_context, screenshots):
    ana, bo, _ = two_players(new_context, "tictactoe")
    expect(bo.locator('#alerts [data-alert="on"]')).to_have_attribute("aria-pressed", "false")
    expect(bo.locator('#alerts [data-alert="sound"]')).to_be_disabled()  # off until switched on
    switch(bo, "on")
    plain = "Tic-tac-toe · Ana vs Bo · Minesweeper Live"
    expect(bo).to_have_title(plain)  # Ana's turn: nothing to say yet

    ana.locator("#square-4").click()
    expect(bo).to_have_title(f"(Your turn) {plain}")
    expect(ana).to_have_title(plain)
    bo.locator("#square-0").click()  # the turn taken: the prefix goes
    expect(bo).to_have_title(plain)
    expect(ana.locator(".room")).to_have_class(re.compile(r"\bmy-turn\b"))
    expect(ana).to_have_title(plain)  # Ana's turn, but her alerts are off

    bo.reload()  # the choice is remembered
    live(bo)
    expect(bo.locator('#alerts [data-alert="on"]')).to_have_attribute("aria-pressed", "true")
    ana.locator("#square-8").click()
    expect(bo).to_have_title(f"(Your turn) {plain}")
    audit(bo, "tictactoe", screenshots)
    screenshot(bo.locator("#alerts"), screenshots / "alerts-switches.png")

    switch(bo, "on")  # switched off again: the prefix goes at once
    expect(bo).to_have_title(plain)


def test_a_hidden_tab_is_notified_when_the_turn_passes_in_flags(new_context, game_db):
    ana, bo, invite = two_players(new_context, "flags", permissions=["notifications"])
    bo.context.add_init_script(NOTIFICATION_SPY)
    bo.reload()
    live(bo)
    code = invite.rstrip("/").rsplit("/", 1)[1]
    switch(bo, "on")
    switch(bo, "notify")
    expect(bo.locator("#alerts")).not_to_have_attribute("data-notified", re.compile("."))
    set_hidden(bo, True)

    state = game_db.state(code)
    mines = set(state["field"])
    safe = next(c for c in range(state["width"] * state["height"]) if c not in mines)
    ana.locator(f"#cell-{safe % state['width']}-{safe // state['width']}").click()
    expect(bo.locator("#board")).to_have_attribute("data-turn", "O")
    expect(bo).to_have_title(re.compile(r"^\(Your turn\) Flags · Ana vs Bo"))
    expect(bo.locator("#alerts")).to_have_attribute("data-notified", "1")
    made = bo.evaluate("window.notificationsMade")
    assert [m["title"] for m in made] == ["Your turn"]
    assert "Ana vs Bo" in made[0]["body"]


def test_a_race_countdown_titles_a_racers_tab_until_they_look(new_context):
    ana = new_context(reduced_motion="reduce").new_page()
    invite = create_race(ana, "Ana")
    bo = join(new_context(reduced_motion="reduce"), invite, "Bo")
    switch(bo, "on")
    switch(bo, "sound")  # the switch's click plays the sound once, as a sample
    expect(bo.locator("#alerts")).to_have_attribute("data-sounded", "1")
    set_hidden(bo, True)
    ana.get_by_role("button", name="Start race").click()
    expect(bo).to_have_title(re.compile(r"^\(Race!\) Minesweeper race"))
    expect(bo.locator("#alerts")).to_have_attribute("data-sounded", "2")
    expect(bo.locator("#race")).to_have_attribute("data-phase", "racing")
    expect(bo).to_have_title(re.compile(r"^\(Race!\) "))  # still hidden after Go: it stays
    expect(ana).not_to_have_title(re.compile(r"^\("))  # Ana left hers off
    set_hidden(bo, False)
    expect(bo).to_have_title(re.compile(r"^Minesweeper race"))


def test_a_mention_and_unread_lines_count_until_read(new_context, screenshots):
    ana, bo, invite = two_players(new_context, "tictactoe", color_scheme="dark")
    cy = new_context(reduced_motion="reduce").new_page()
    cy.goto(f"{invite.rstrip('/')}/watch/")
    live(cy)
    switch(bo, "on")
    plain = "Tic-tac-toe · Ana vs Bo · Minesweeper Live"
    for element in (tab(bo, "players"), tab(bo, "spectators"), bo.locator(".chat-fold")):
        expect(element).to_have_attribute("data-unread", "0")

    # A hidden tab: a line naming Bo is unread, and titled.
    set_hidden(bo, True)
    say(ana, "your move, @bo!")
    expect(bo).to_have_title(f"(1) {plain}")
    expect(tab(bo, "players")).to_have_attribute("data-unread", "1")
    expect(bo.locator(".chat-fold")).to_have_attribute("data-unread", "1")
    say(ana, "Bob is not you")  # unread, but it names nobody here
    expect(tab(bo, "players")).to_have_attribute("data-unread", "2")
    expect(bo).to_have_title(f"(1) {plain}")
    set_hidden(bo, False)  # looking at the Players tab: read
    expect(tab(bo, "players")).to_have_attribute("data-unread", "0")
    expect(bo).to_have_title(plain)

    # The spectators' tab counts while Bo reads the players'; Bo's own line is never news.
    say(cy, "nice one")
    expect(tab(bo, "spectators")).to_have_attribute("data-unread", "1")
    expect(tab(bo, "spectators").locator(".unread-badge")).to_be_visible()
    expect(tab(bo, "spectators").locator(".unread-badge")).to_have_text("1 unread")
    expect(tab(ana, "spectators")).to_have_attribute("data-unread", "1")
    say(bo, "thanks")
    expect(bo.locator("#chat-players .chat-message")).to_have_count(3)
    expect(tab(bo, "players")).to_have_attribute("data-unread", "0")
    bo.locator("#chat").scroll_into_view_if_needed()
    screenshot(bo, screenshots / "alerts-unread-laptop-dark.png", animations="disabled")
    tab(bo, "spectators").click()
    expect(tab(bo, "spectators")).to_have_attribute("data-unread", "0")
    expect(tab(bo, "spectators").locator(".unread-badge")).to_be_hidden()
    expect(bo.locator(".chat-where")).to_have_text("Your lines go to the Players tab.")

    # The spectator reading the players' tab is told where their line goes.
    expect(cy.locator(".chat-where")).to_be_hidden()
    tab(cy, "players").click()
    expect(cy.locator(".chat-where")).to_be_visible()
    expect(cy.locator(".chat-where")).to_contain_text("Spectators tab")

    # Folded, the chat counts everything unread; opened, the selected tab's lines are read.
    bo.locator(".chat-fold > summary").click()
    expect(bo.locator(".chat-fold")).not_to_have_attribute("open", "")
    say(ana, "hello")
    say(cy, "hi all")
    expect(bo.locator(".chat-fold")).to_have_attribute("data-unread", "2")
    expect(bo.locator(".chat-fold > summary .unread-badge")).to_have_text("2 unread")
    audit(bo, "unread-folded", screenshots)
    bo.locator(".chat-fold > summary").click()  # opens on the Spectators tab
    expect(tab(bo, "spectators")).to_have_attribute("data-unread", "0")
    expect(tab(bo, "players")).to_have_attribute("data-unread", "1")
    expect(bo.locator(".chat-fold")).to_have_attribute("data-unread", "1")


def test_a_phone_starts_folded_and_counts_lines(new_context, screenshots):
    for scheme in ("light", "dark"):
        ana = new_context(reduced_motion="reduce").new_page()
        invite = create(ana, "tictactoe", "Ana", x="human", o="human")
        context = new_context(viewport=PHONE, color_scheme=scheme, reduced_motion="reduce")
        bo = join(context, invite, f"Bo{scheme[0]}")
        fold = bo.locator(".chat-fold")
        expect(fold).not_to_have_attribute("open", "")
        switch(bo, "on")
        say(ana, f"welcome Bo{scheme[0]}")
        expect(fold).to_have_attribute("data-unread", "1")
        expect(bo).to_have_title(re.compile(r"^\(1\) "))  # folded: unread though visible
        expect(fold.locator("summary .unread-badge")).to_be_visible()
        bo.locator("#alerts").scroll_into_view_if_needed()
        screenshot(bo, screenshots / f"alerts-phone-{scheme}.png", animations="disabled")
        fold.locator("summary").click()
        expect(fold).to_have_attribute("data-unread", "0")
        expect(bo).not_to_have_title(re.compile(r"^\("))
        context.close()
        ana.context.close()
