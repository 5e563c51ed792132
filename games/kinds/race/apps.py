from ..apps import KindConfig


class RaceConfig(KindConfig):
    name = "games.kinds.race"
    label = "kind_race"
    verbose_name = "Minesweeper race"
    default = True
