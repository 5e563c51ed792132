from ..apps import KindConfig


class TicTacToeConfig(KindConfig):
    name = "games.kinds.tictactoe"
    label = "kind_tictactoe"
    verbose_name = "Tic-tac-toe"
    default = True
