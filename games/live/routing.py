from django.urls import path

from .consumer import RoomConsumer

websocket_urlpatterns = [
    path("ws/r/<str:code>/", RoomConsumer.as_asgi()),
]
