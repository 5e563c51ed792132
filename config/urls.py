from django.contrib import admin
from django.urls import include, path

from games.web.api import api
from games.web.scrape import metrics

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("metrics", metrics, name="metrics"),
    path("", include("games.players.urls")),
    path("", include("games.web.urls")),
]

handler404 = "games.web.views.not_found"
