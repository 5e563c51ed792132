"""A kind's part in quick match (`GameKind.seeking`): how `/play/`, the lobby socket and the
open seeks offer it to strangers (docs/contracts.md, "Quick match").

Plain data, so that the lobby's parser, its pairing, its list and its page read every kind
the same way (`games.kinds.seekable`) and none of them names a kind: a kind without this part
is played with friends only.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Seeking:
    label: str
    """How the page's buttons and the open seeks name the kind ("Flags")."""
    players: range = range(2, 3)
    """How many people a match takes; when more than one count is possible the seeker picks
    one (a seek's `players`, from `/play/`'s `<mode or game>-players` choice), else it is
    this one count (two for a two-sided kind)."""
    players_label: str = ""
    """The label of `/play/`'s choice of players, when the seeker picks."""
    presets: tuple[str, ...] = ()
    """Boards a seek of this kind names one of (a seek's `preset`): one button each on
    `/play/`; none, a seek takes no `preset`."""
    room_options: Mapping[str, Any] = field(default_factory=dict)
    """The API's create options of a matched room besides its `game`, `mode` and `preset`
    (a two-sided kind's human opponent)."""
    why_this_mode: str = ""
    """For a kind that is a mode of another's game: why a seek of that game needs this mode,
    said to a seek without it."""
    start_command: str | None = None
    """The command a matched room's host would give to start it, which the server gives for
    them once everyone matched has connected (a race's `start`); None: the game starts as
    every room of its kind does."""

    @property
    def picks_players(self) -> bool:
        return len(self.players) > 1
