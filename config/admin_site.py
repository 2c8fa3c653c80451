"""The admin site (`/admin/`), and the two rules it enforces for every model admin registered on it.

1. A changelist answers only the lookups its admin offers (docs/security.md): its list
   filters, its date hierarchy and the query parameters its own pages link to (`link_lookups`).
   Django's default `ModelAdmin.lookup_allowed` accepts any lookup on the model's own fields, JSON key
   transforms included, so `?setup__seed__startswith=4` answered yes or no about a running deal's
   seed, and `?password__startswith=` about a password hash. Any other lookup raises
   DisallowedModelAdminLookup, which Django answers `400`, whatever the hidden value.
2. Staff power needs no active ban (docs/moderation.md "Who may sanction whom"): a banned user cannot
   sign in here, and every admin URL sends a banned user's open session to the sign-in page.
"""

from django import forms
from django.contrib import admin
from django.contrib.auth.views import PasswordChangeView
from django.db.models.constants import LOOKUP_SEP
from django.urls import reverse

from accounts import selectors as account_selectors
from accounts.models import SanctionKind
from accounts.oauth_login import ThrottledAdminAuthenticationForm, ThrottledAdminPasswordChangeForm

# The query parameters of Django's field filters (django.contrib.admin.filters): choices and booleans
# use `exact` and `isnull`, the all-values filter the bare path and `isnull`, date filters `gte`, `lt`
# and `isnull`, the empty filter `isempty`; a relation's filter names the related row by its primary
# key.
FIELD_FILTER_LOOKUPS = ("exact", "isnull", "gte", "lt", "isempty")
DATE_HIERARCHY_LOOKUPS = ("year", "month", "day")


def _field_filter_parameters(model, path: str) -> set[str]:
    opts, field = model._meta, None
    for part in path.split(LOOKUP_SEP):
        field = opts.get_field(part)
        if field.is_relation:
            opts = field.related_model._meta
    parameters = {path, *(f"{path}{LOOKUP_SEP}{lookup}" for lookup in FIELD_FILTER_LOOKUPS)}
    if field.is_relation:
        parameters.add(f"{path}{LOOKUP_SEP}{opts.pk.name}{LOOKUP_SEP}exact")
    return parameters


class OfferedLookupsOnly:
    """Mixed into every model admin of the site (AdminSite.register): rule 1 above. An admin filters
    only by columns its list shows, never by a hidden one (tests/moderation/test_admin_lookups.py
    checks every registered admin), so no offered lookup reaches hidden data.

    A model admin may name in `link_lookups` the query parameters of links the project's pages make
    to its list (a deal's page links to its events with `game__id__exact`). It is read with a
    default, not declared here: this class comes first in the bases and would hide the admin's."""

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        return lookup in self.lookups_offered(request)

    def lookups_offered(self, request) -> set[str]:
        offered = set(getattr(self, "link_lookups", ()))
        list_filter = self.get_list_filter(request) if request is not None else self.list_filter
        for item in list_filter:
            if isinstance(item, type) and issubclass(item, admin.SimpleListFilter):
                offered.add(item.parameter_name)
            elif isinstance(item, str | list | tuple):
                path = item if isinstance(item, str) else item[0]
                offered |= _field_filter_parameters(self.model, path)
        if self.date_hierarchy:
            offered |= {f"{self.date_hierarchy}{LOOKUP_SEP}{part}" for part in DATE_HIERARCHY_LOOKUPS}
        return offered


def _banned(user) -> bool:
    return account_selectors.sanction_active(user_id=user.pk, kinds=[SanctionKind.BAN]) is not None


class AdminSignInForm(ThrottledAdminAuthenticationForm):
    """The admin's sign-in: staff only (Django's check), under no ban, and counted against the
    lock-out like every password check (accounts/oauth_login.py)."""

    def confirm_login_allowed(self, user) -> None:
        super().confirm_login_allowed(user)
        if _banned(user):
            raise forms.ValidationError("This account is banned.", code="banned")


class AdminSite(admin.AdminSite):
    login_form = AdminSignInForm

    def password_change(self, request, extra_context=None):
        """Django's password change page, with the old password counted against the sign-in lock-out
        like every password check (accounts/oauth_login.py): the site offers no setting for its form."""
        defaults = {
            "form_class": ThrottledAdminPasswordChangeForm,
            "success_url": reverse("admin:password_change_done", current_app=self.name),
            "extra_context": {**self.each_context(request), **(extra_context or {})},
        }
        if self.password_change_template is not None:
            defaults["template_name"] = self.password_change_template
        request.current_app = self.name
        return PasswordChangeView.as_view(**defaults)(request)

    def has_permission(self, request) -> bool:
        # Asked by every admin view before it runs (AdminSite.admin_view): rule 2 above.
        return super().has_permission(request) and not _banned(request.user)

    def register(self, model_or_iterable, admin_class=None, **options) -> None:
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, OfferedLookupsOnly):
            # The installed apps' admins (auth's groups, auditlog's entries, the OAuth toolkit's
            # tokens) get rule 1 as ours do. Django's own register() subclasses the admin class in
            # the same way when it is given options.
            bases = (OfferedLookupsOnly, admin_class)
            admin_class = type(admin_class.__name__, bases, {"__module__": admin_class.__module__})
        super().register(model_or_iterable, admin_class, **options)
