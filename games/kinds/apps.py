"""Each game kind is a Django app, registered like a pretix plugin: one line in `INSTALLED_APPS`
(config/settings.py) names its folder, and its templates and static files are found there by
Django's app loaders, under the same names and URLs as before (`games/<kind>_room.html`,
`/static/games/<kind>.js`).

`games.kinds` is an app too, for what several kinds share (`sides.html`, the two-sided kinds'
partials). The registry (`games.kinds.registry`) asks Django for every `KindConfig`, in the order
the settings list them, which is the order the home page offers them.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from .table import GameKind


class KindsConfig(AppConfig):
    """What the kinds share: their templates (the two-sided kinds' `sides.html`)."""

    name = "games.kinds"
    label = "kinds"
    verbose_name = "Game kinds"


class KindConfig(AppConfig):
    """One game kind's app. Its package's `kind` module holds its table, `KIND`: read only when
    the registry is first asked, since a kind's modules need the models, which Django loads after
    the apps."""

    default = False
    """Not the app of `games.kinds` itself, though this module defines it: each kind's `apps.py`
    subclasses it with `default = True`, since it imports this class beside its own."""

    @property
    def kind(self) -> "GameKind":
        table: GameKind = import_module(f"{self.name}.kind").KIND
        return table
