from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "games.players"
    label = "players"
    verbose_name = "Players (accounts, tokens)"
    default_auto_field = "django.db.models.BigAutoField"
