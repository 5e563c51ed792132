from django.contrib import admin
from django.urls import include, path

from games.web.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("", include("games.web.urls")),
]

handler404 = "games.web.views.not_found"
