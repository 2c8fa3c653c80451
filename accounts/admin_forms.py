"""Admin actions that ask for a reason first (an intermediate page, like Django's delete
confirmation), then call the same services as the API, which write the audit entry."""

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse

from accounts.models import SanctionKind
from infra.api.errors import ApiError

SOURCE = "admin"


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Kept in the audit log.",
    )


class SanctionForm(ReasonForm):
    kind = forms.ChoiceField(choices=SanctionKind.choices)
    expires_at = forms.DateTimeField(
        required=False, help_text="UTC, e.g. 2026-12-08 03:00. Empty: until revoked."
    )


def confirm_with_reason(
    modeladmin: admin.ModelAdmin,
    request,
    queryset,
    *,
    title: str,
    apply: Callable[[object, dict], object],
    form_class: type[forms.Form] = ReasonForm,
) -> TemplateResponse | None:
    """Run an admin action on `queryset` once the moderator has given a reason on the intermediate
    page; `apply(obj, cleaned_data)` does one object. A refusal (ApiError) of one object is reported
    and the others go on. Returns the page to show, or None to go back to the list."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        done = 0
        for obj in queryset:
            try:
                apply(obj, form.cleaned_data)
            except ApiError as exc:
                modeladmin.message_user(request, f"{obj}: {exc.message}", messages.WARNING)
            else:
                done += 1
        modeladmin.message_user(request, f"{title}: done for {done} of {len(queryset)}.", messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "objects": list(queryset),
        "action": request.POST.get("action", ""),
        "selected": request.POST.getlist(ACTION_CHECKBOX_NAME),
        "checkbox_name": ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/moderation/confirm_action.html", context)
