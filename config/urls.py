from django.contrib import admin
from django.urls import include, path

from games.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("", include("games.urls")),
]

handler404 = "games.views.not_found"
