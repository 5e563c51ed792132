from ..apps import KindConfig


class MinesweeperConfig(KindConfig):
    name = "games.kinds.minesweeper"
    label = "kind_minesweeper"
    verbose_name = "Minesweeper"
    default = True
