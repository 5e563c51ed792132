"""The game kinds: per kind, everything the shell needs (`table.GameKind`), and the registry.

Each kind is a package and a Django app (`apps.KindConfig`), as a pretix plugin is: `rules`
(settings, moves and computer players over the pure engine), `render` (HTML through its
templates), `form` (its part of the home page's create form), `options` (its API create
options), `history` (replays), `templates/` and `static/`, and `kind.KIND`, the table that the
shell looks up. Adding a kind is one such package and one line in `INSTALLED_APPS`
(docs/architecture.md, "Adding a kind"). This layer may import the engine, `games.protocol` (the
parsed moves its rules take, the audience keys its renderers write) and `games.store`; never the
actions (`games.rooms`), the broadcast, the socket or the pages.

Django imports this package before the models are ready (it is an app), so the registry's names
(`KINDS`, `kind_of`, `kind_for`, `create_options`, `create_schema`) are read from
`games.kinds.registry` on first use.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import KINDS, create_options, create_schema, kind_for, kind_of

__all__ = ["KINDS", "create_options", "create_schema", "kind_for", "kind_of"]


def __getattr__(name: str) -> Any:
    """The registry's names, imported when first asked for (PEP 562)."""
    if name in __all__:
        from . import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
