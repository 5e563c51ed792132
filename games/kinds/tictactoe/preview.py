"""What a chat app shows for a link to a Tic-tac-toe game (`Replays.link_words`)."""

from collections.abc import Mapping
from typing import Any

from ..preview_words import two_sided
from ..replays import Page, Timeline, Words


def words(timeline: Timeline, room: Mapping[str, Any], page: Page) -> Words:
    return two_sided("Tic-tac-toe", timeline, room["params"], page)
