from django.urls import path

from . import daily, play, previews, profile, replays, seat_views, standings, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("rooms/", views.create_room, name="create_room"),
    path("rooms/live/", views.live_rooms, name="live_rooms"),
    path("on-now/", views.on_now_panel, name="on_now"),
    path("r/<str:code>/", views.room, name="room"),
    path("r/<str:code>/join/", views.join, name="join"),
    path("r/<str:code>/watch/", views.watch, name="watch"),
    path("r/<str:code>/leave/", seat_views.leave, name="leave"),
    path("r/<str:code>/qr.svg", seat_views.qr, name="room_qr"),
    path("r/<str:code>/preview.png", previews.room_picture, name="room_picture"),
    path("r/<str:code>/games/<int:number>/", replays.replay, name="replay"),
    path(
        "r/<str:code>/games/<int:number>/chunks/<int:first>/",
        replays.replay_chunk,
        name="replay_chunk",
    ),
    path(
        "r/<str:code>/games/<int:number>/preview.png",
        previews.replay_picture,
        name="replay_picture",
    ),
    path("r/<str:code>/rewind/", replays.rewind, name="rewind"),
    path("r/<str:code>/history/", replays.room_history, name="room_history"),
    path("records/", replays.records, name="records"),
    path("play/", play.play, name="play"),
    path("play/seat/", play.seat, name="play_seat"),
    path("daily/", daily.today, name="daily"),
    path("daily/play/", daily.play, name="daily_play"),
    path("daily/<str:day>/", daily.past_day, name="daily_day"),
    path("@/<str:username>/", profile.player_profile, name="profile"),
    path("leaderboard/", standings.leaderboard, name="leaderboard"),
]
