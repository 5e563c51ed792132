from django.contrib import admin

from .store.models import Game, Move, Player, Room


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    fields = ("number", "nickname", "colour", "role", "connections")
    readonly_fields = ("connections",)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ("code", "kind", "is_public", "spectators", "created_at")
    list_filter = ("kind", "is_public")
    search_fields = ("code",)
    inlines = [PlayerInline]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("room", "number", "status", "version", "started_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = ("seed", "state", "version")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "seat", "action", "x", "y", "cell", "created_at")
    list_select_related = ("game",)


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("nickname", "room", "number", "role", "connections")
    search_fields = ("nickname",)
