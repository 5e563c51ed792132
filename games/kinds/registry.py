"""The registry of game kinds: every installed `KindConfig`'s table, by name.

Built on first use (`games.kinds` hands these names out lazily), once Django's apps are ready:
a kind is registered by its line in `INSTALLED_APPS` alone, and no shell module names it.
"""

from django.apps import apps

from . import options
from .apps import KindConfig
from .table import CreateOptions, GameKind

KINDS: dict[str, GameKind] = {
    kind.name: kind
    for kind in (config.kind for config in apps.get_app_configs() if isinstance(config, KindConfig))
}
"""Every kind by name, in the order the home page offers them (`INSTALLED_APPS`'s)."""


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
    """An API create body as its kind and its kind's options (`GameKind.setup.options`),
    strictly: SettingsError for an unknown game or field, or a value out of bounds."""
    chosen = options.validate((kind.setup.options for kind in KINDS.values()), body)
    return next(k for k in KINDS.values() if k.setup.options is type(chosen)), chosen


def create_schema() -> dict[str, object]:
    """The JSON schema of the create body: every registered kind's options, one per kind."""
    return options.adapter(kind.setup.options for kind in KINDS.values()).json_schema(
        ref_template="#/components/schemas/{model}"
    )
