"""Lean moves in the browser (issue 17): the server sends a mid-game move's cells as id, state and
count only, and room.js updates them in place and derives what the server no longer writes: the
cell's label, the mines counter, the mover's share and the live region's line."""

import re

from playwright.sync_api import expect

from tests.helpers.e2e.rooms import (
    cell,
    create_room,
    invite_link,
    join_room,
    mines_on_the_edge,
    next_safe_cell,
)


def test_a_lean_move_updates_the_cell_in_place_and_the_page_derives_the_rest(new_context, game_db):
    ana = new_context().new_page()
    code = create_room(ana, "Ana", preset="intermediate")
    bo = join_room(new_context(), invite_link(ana), "Bo")
    cell(ana, 8, 8).click()
    expect(cell(bo, 8, 8)).to_have_attribute("data-state", "revealed")

    x, y = mines_on_the_edge(game_db, code)[0]
    cell(ana, x, y).evaluate("(c) => { c.dataset.probe = 'kept'; }")
    cell(bo, x, y).click(button="right")
    flagged = cell(ana, x, y)
    expect(flagged).to_have_attribute("data-state", "flagged")
    expect(flagged).to_have_attribute("data-probe", "kept")  # the same element, not a new one
    expect(flagged).to_have_attribute("aria-label", f"row {y + 1}, column {x + 1}, flagged")
    expect(flagged).to_have_attribute("data-x", str(x))
    expect(flagged).to_have_class("cell")
    expect(ana.locator("#mines-left")).to_have_text("039")
    expect(ana.locator("#narration")).to_have_text(f"Bo flagged row {y + 1}, column {x + 1}.")

    cell(bo, x, y).click(button="right")
    expect(cell(ana, x, y)).to_have_attribute("data-state", "hidden")
    expect(ana.locator("#mines-left")).to_have_text("040")
    expect(ana.locator("#narration")).to_have_text("Bo removed a flag.")

    share = ana.locator('#roster [data-seat="1"] .share')
    expect(share).to_have_text("0")
    sx, sy = next_safe_cell(game_db, code)
    cell(bo, sx, sy).click()
    opened = cell(ana, sx, sy)
    expect(opened).to_have_attribute("data-state", "revealed")
    count = opened.get_attribute("data-count")
    label = f"{count} adjacent mine{'s' if count != '1' else ''}" if count != "0" else "empty"
    expect(opened).to_have_attribute("aria-label", f"row {sy + 1}, column {sx + 1}, {label}")
    expect(opened).to_have_text("" if count == "0" else count)
    expect(ana.locator("#narration")).to_have_text(re.compile(r"^Bo revealed \d+ cells?\.$"))
    revealed = int(re.search(r"\d+", ana.locator("#narration").inner_text())[0])
    expect(share).to_have_text(str(revealed))
