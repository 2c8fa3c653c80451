from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts import services
from accounts.models import AuthToken, Rating, RatingChange, SideBias, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "is_guest", "banned", "is_staff", "date_joined")
    list_filter = ("banned", "is_guest", "is_bot", "is_staff")
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Game service", {"fields": ("is_guest", "banned")}))
    actions = ("ban_users", "unban_users")

    def get_readonly_fields(self, request, obj=None):
        # Moderators (the ban_user permission) may flip `banned`; only superusers edit privileges.
        readonly = ["is_guest"]
        if not request.user.is_superuser:
            readonly += ["is_staff", "is_superuser", "groups", "user_permissions"]
        if not request.user.has_perm("accounts.ban_user"):
            readonly.append("banned")
        return readonly

    @admin.action(description="Ban selected users", permissions=["ban"])
    def ban_users(self, request, queryset):
        for user in queryset:
            services.user_set_banned(user=user, banned=True)
        self.message_user(request, f"Banned {queryset.count()} user(s).", messages.SUCCESS)

    @admin.action(description="Unban selected users", permissions=["ban"])
    def unban_users(self, request, queryset):
        for user in queryset:
            services.user_set_banned(user=user, banned=False)
        self.message_user(request, f"Unbanned {queryset.count()} user(s).", messages.SUCCESS)

    def has_ban_permission(self, request) -> bool:
        return request.user.has_perm("accounts.ban_user")


@admin.register(AuthToken)
class AuthTokenAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "created_at", "revoked_at")
    readonly_fields = ("key_hash", "user", "created_at")
    search_fields = ("user__username",)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "preset", "mu", "sigma", "ordinal", "deals", "updated_at")
    list_filter = ("preset",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "preset", "mu", "sigma", "ordinal", "deals", "updated_at")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("game_id", "user", "preset", "result", "mu_before", "mu_after", "created_at")
    list_filter = ("preset", "result")
    search_fields = ("user__username", "game_id")
    readonly_fields = (
        "game_id",
        "user",
        "preset",
        "result",
        "mu_before",
        "sigma_before",
        "mu_after",
        "sigma_after",
        "created_at",
    )


@admin.register(SideBias)
class SideBiasAdmin(admin.ModelAdmin):
    list_display = ("preset", "shape", "mu", "sigma", "deals", "updated_at")
    readonly_fields = ("preset", "shape", "mu", "sigma", "deals", "updated_at")
