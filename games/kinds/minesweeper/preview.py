"""What a chat app shows for a link to a co-op game (`Replays.link_words`)."""

from collections.abc import Mapping
from typing import Any

from ..preview_words import a_board, board_words, movers, seconds, together
from ..replays import Page, Timeline, Words


def minesweeper(timeline: Timeline, settings: Mapping[str, Any], status: str, page: Page) -> Words:
    board = board_words(settings["width"], settings["height"], settings["mines"])
    who = together(movers(timeline)) or "Nobody yet"
    verb = "is" if len(movers(timeline)) == 1 else "are"
    if page is Page.REPLAY:
        done = {"won": f"won {board}", "lost": f"hit a mine on {board}"}
        title = f"Replay: {who} {done.get(status, f'playing {board}')}{seconds(timeline.stats)}"
    elif status == "won":
        title = f"{who} cleared {a_board(board)}{seconds(timeline.stats)}"
    elif status == "lost":
        title = f"{who} hit a mine on {a_board(board)}"
    else:
        title = f"{who} {verb} clearing {a_board(board)} — {page.value}"
    shape = f"{settings['width']}×{settings['height']}, {settings['mines']} mines"
    return Words(title, f"Co-op Minesweeper, {shape}: clear the board together, live.")


def words(timeline: Timeline, room: Mapping[str, Any], page: Page) -> Words:
    return minesweeper(timeline, room["settings"], room["status"], page)
