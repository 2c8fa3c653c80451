from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import AuthToken, Rating, RatingChange, SideBias, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "is_guest", "is_staff", "date_joined")
    list_filter = ("is_guest", "is_staff")
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Game service", {"fields": ("is_guest",)}))


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
