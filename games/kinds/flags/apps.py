from ..apps import KindConfig


class FlagsConfig(KindConfig):
    name = "games.kinds.flags"
    label = "kind_flags"
    verbose_name = "Flags"
    default = True
