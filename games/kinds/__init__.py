"""The game kinds: per kind, everything the shell needs (`table.GameKind`), and the registry.

Each kind is a package: `rules` (settings, moves and computer players over the pure engine),
`render` (HTML through its templates), `form` (its part of the home page's create form),
`options` (its API create options) and its `KIND`, the table that the shell looks up. Adding a
kind is one such package, its templates, and one line below. This layer may import the engine,
`games.protocol` (the parsed moves its rules take, the audience keys its renderers write) and
`games.store`; never the actions (`games.rooms`), the broadcast, the socket or the pages.
"""

from . import flags, minesweeper, options, race, tictactoe
from .table import CreateOptions, GameKind

KINDS: dict[str, GameKind] = {
    kind.name: kind for kind in (minesweeper.KIND, race.KIND, flags.KIND, tictactoe.KIND)
}
"""Every kind by name, in the order the home page offers them."""


def kind_of(name: str) -> GameKind:
    """The table of a room's kind (`Room.kind`) or of an API body's `game`."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown game kind {name!r}") from None


def kind_for(game: str, mode: str | None = None) -> GameKind:
    """The kind an API body or the home form names by `game` and `mode` (Minesweeper's `race`
    is a kind of its own); ValueError for a pair no kind answers to."""
    wanted = None if mode in (None, "", "coop") else mode
    for kind in KINDS.values():
        if kind.api_game == game and kind.mode == wanted:
            return kind
    raise ValueError(f"unknown mode {mode!r} of {game!r}")


def create_options(body: object) -> tuple[GameKind, CreateOptions]:
    """An API create body as its kind and its kind's options (`GameKind.options`), strictly:
    SettingsError for an unknown game or field, or a value out of bounds."""
    chosen = options.validate((kind.options for kind in KINDS.values()), body)
    return next(k for k in KINDS.values() if k.options is type(chosen)), chosen


def create_schema() -> dict[str, object]:
    """The JSON schema of the create body: every registered kind's options, one per kind."""
    return options.adapter(kind.options for kind in KINDS.values()).json_schema(
        ref_template="#/components/schemas/{model}"
    )
