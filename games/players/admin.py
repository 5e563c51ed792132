"""The admin's pages of accounts: API tokens (read only), and the `User` page with its profile
inline, where staff mark a bot account (the `mark_bot` command does the same from a shell)."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User

from .models import ApiToken, Profile


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "hint", "created_at", "last_used_at")
    readonly_fields = ("user", "digest", "hint", "created_at", "last_used_at")


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ("bot",)


class AccountAdmin(UserAdmin):
    """Django's own user admin, with the bot flag beside the rest and a filter by it."""

    inlines = (ProfileInline,)
    list_display = (*UserAdmin.list_display, "is_bot")
    list_filter = (*UserAdmin.list_filter, "profile__bot")

    @admin.display(boolean=True, description="bot", ordering="profile__bot")
    def is_bot(self, user: User) -> bool:
        profile = getattr(user, "profile", None)
        return bool(profile and profile.bot)


admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
