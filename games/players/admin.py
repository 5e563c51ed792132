from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "hint", "created_at", "last_used_at")
    readonly_fields = ("user", "digest", "hint", "created_at", "last_used_at")
