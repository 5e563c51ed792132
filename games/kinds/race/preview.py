"""What a chat app shows for a link to a race (`Replays.link_words`)."""

from collections.abc import Mapping
from typing import Any

from ..preview_words import board_words, people, seconds
from ..replays import Page, Timeline, Words
from ..table import COMPUTER_SEAT


def race(
    timeline: Timeline,
    settings: Mapping[str, Any],
    state: Mapping[str, Any],
    page: Page,
    params: Mapping[str, Any] | None = None,
) -> Words:
    board = board_words(settings["width"], settings["height"], settings["mines"])
    winner = timeline.stats.get("winner_name")
    seats = [entrant[0] for entrant in state.get("entrants") or ()]
    bot = COMPUTER_SEAT in seats if seats else bool((params or {}).get("bot"))
    racers = len([seat for seat in seats if seat != COMPUTER_SEAT]) or len(people(timeline))
    if winner:
        title = f"Race: {winner} won on {board}{seconds(timeline.stats)}"
        title = f"Replay: {title}" if page is Page.REPLAY else title
    else:
        # Once it has started nobody new joins it: the link is to watch.
        started = state.get("phase", "lobby") != "lobby"
        ask = "watch" if page is Page.REPLAY or started else page.value
        plural = "racer" if racers == 1 else "racers"
        also = " and the Solver bot" if bot else ""  # "2 racers" had left the bot out
        title = f"Race: {racers} {plural}{also} on {board} — {ask}"
    shape = f"{settings['width']}×{settings['height']}, {settings['mines']} mines"
    return Words(title, f"Minesweeper race, {shape}: same board, first to clear it wins.")


def words(timeline: Timeline, room: Mapping[str, Any], page: Page) -> Words:
    return race(timeline, room["settings"], room["state"], page, room.get("params"))
