from games.kinds.apps import KindConfig


class LightsOutConfig(KindConfig):
    name = "tests.helpers.toy_kind"
    label = "kind_lights"
    verbose_name = "Lights Out"
    default = True
