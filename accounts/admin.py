from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy as _

from accounts import selectors, services
from accounts.admin_forms import SOURCE, confirm_with_reason
from accounts.models import AuthToken, ModerationAction, Rating, RatingChange, Sanction, SideBias, User
from accounts.usernames import username_key, username_resembles_reserved


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written only by services: the admin lists and shows them, never edits them."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class SanctionInline(admin.TabularInline):
    model = Sanction
    fk_name = "user"
    extra = 0
    fields = ("kind", "reason", "moderator", "created_at", "expires_at", "revoked_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class _UsernameUnique:
    """A name that compares equal to another user's (accounts/usernames.py) is a form error, not a
    unique-constraint failure: Django's forms compare names with `iexact`, a weaker test. A new or
    changed name that looks like another user's or a reserved one (TR 39 skeletons) is one too, as on
    registration."""

    def clean_username(self):
        django_check = getattr(super(), "clean_username", None)  # the creation form's iexact test
        username = django_check() if django_check else self.cleaned_data.get("username")
        if not username:
            return username
        clash = User.objects.filter(username_key=username_key(username)).exclude(pk=self.instance.pk)
        if clash.exists():
            raise forms.ValidationError("A user with that username already exists.", code="unique")
        # An unchanged name is left alone: guests and server bots keep theirs, older look-alikes too.
        if "username" in self.changed_data and (
            username_resembles_reserved(username)
            or selectors.username_looks_taken(username=username, exclude_user_id=self.instance.pk)
        ):
            raise forms.ValidationError(
                "That username is too similar to an existing or reserved one.", code="similar"
            )
        return username


class UserCreationAdminForm(_UsernameUnique, AdminUserCreationForm):
    pass


class UserChangeAdminForm(_UsernameUnique, UserChangeForm):
    pass


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserChangeAdminForm
    add_form = UserCreationAdminForm
    list_display = ("username", "is_guest", "is_staff", "is_active", "date_joined", "last_login")
    list_filter = ("is_guest", "is_bot", "is_staff", "is_active", "groups")
    search_fields = ("username", "email")
    list_per_page = 50
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Game service", {"fields": ("is_guest",)}))
    inlines = [SanctionInline]

    def get_readonly_fields(self, request, obj=None):
        readonly = ["is_guest", "last_login", "date_joined"]
        if not request.user.is_superuser:
            readonly += ["is_staff", "is_superuser", "groups", "user_permissions"]
        return readonly

    def has_delete_permission(self, request, obj=None) -> bool:
        # A user's row is referenced by the tables he created, his seats and other players' deals and
        # feeds: deleting it would take other players' games with it (a table cascades from its
        # creator) or fail at commit. Moderators deactivate or ban (docs/moderation.md); a user who
        # wants to go deletes his own account, which keeps the records under an anonymous name.
        return False


@admin.register(Sanction)
class SanctionAdmin(ReadOnlyAdmin):
    """Sanctions are imposed from the user or report lists (they also act on running deals) and
    revoked here, each with a reason kept in the moderation log."""

    list_display = ("id", "user", "kind", "reason", "moderator", "created_at", "expires_at", "revoked_at")
    list_filter = ("kind", ("revoked_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("user__username", "reason")
    list_select_related = ("user", "moderator")
    list_per_page = 50
    actions = ("revoke_sanctions",)

    @admin.action(description=_("Revoke selected sanctions…"), permissions=["revoke"])
    def revoke_sanctions(self, request, queryset):
        return confirm_with_reason(
            self,
            request,
            queryset,
            title=_("Revoke sanctions"),
            apply=lambda sanction, data: services.sanction_revoke(
                sanction_id=sanction.pk, moderator=request.user, note=data["reason"], source=SOURCE
            ),
        )

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("accounts.revoke_sanction")


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    """The append-only moderation log: nobody edits or deletes an entry, superusers included."""

    list_display = (
        "created_at",
        "moderator",
        "action",
        "target_type",
        "target_id",
        "subject_user_id",
        "source",
        "reason",
    )
    list_filter = ("action", "source", "target_type", "created_at")
    search_fields = ("reason", "moderator__username", "=target_id", "=subject_user_id")
    list_select_related = ("moderator",)
    list_per_page = 50
    date_hierarchy = "created_at"


@admin.register(AuthToken)
class AuthTokenAdmin(admin.ModelAdmin):
    """Tokens without their secret: the key is never stored, and its hash is not shown either."""

    list_display = (
        "id", "user", "kind", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at",
        "revoked_at",
    )
    list_filter = ("kind",)
    exclude = ("key_hash",)
    readonly_fields = ("user", "kind", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at")
    search_fields = ("user__username", "prefix", "name")

    def has_add_permission(self, request) -> bool:
        return False  # issued by the API, which shows the secret once
    list_select_related = ("user",)
    list_per_page = 50


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "preset", "mu", "sigma", "ordinal", "deals", "updated_at")
    list_filter = ("preset",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "preset", "mu", "sigma", "ordinal", "deals", "updated_at")
    list_per_page = 50


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("game_id", "user", "preset", "result", "mu_before", "mu_after", "created_at")
    list_filter = ("preset", "result")
    search_fields = ("user__username", "game_id")
    list_per_page = 50
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


# Webhooks, their messages and every delivery attempt (accounts/webhooks/admin.py).
from accounts.webhooks import admin as webhooks_admin  # noqa: E402,F401
