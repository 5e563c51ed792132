"""The game kinds: per kind, everything the shell needs (`table.GameKind`), and the registry.

Each kind is a package: `rules` (settings, moves and computer players over the pure engine),
`render` (HTML through its templates), `form` (its part of the home page's create form) and its
`KIND`, the table that the shell looks up. Adding a kind is one such package, its templates, and
one line below. This layer may import the engine, `games.messages` and `games.models`; never
the services, the socket or the pages.
"""

from . import flags, minesweeper, tictactoe
from .table import GameKind

KINDS: dict[str, GameKind] = {
    kind.name: kind for kind in (minesweeper.KIND, flags.KIND, tictactoe.KIND)
}
"""Every kind by name, in the order the home page offers them."""


def kind_of(name: str) -> GameKind:
    """The table of a room's kind (`Room.kind`) or of an API body's `game`."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown game kind {name!r}") from None
