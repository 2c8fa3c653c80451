"""The sign-in pages that take a password besides `POST auth/token`: the one in front of the OAuth
consent page (`/o/login/`) and the admin's (`/admin/login/`).

They count wrong passwords like `POST auth/token` does (accounts/throttles.py), so that no page is a
way around the lock-out: after LOGIN_FAILURES_MAX failures an account's sign-ins are refused for the
window, whatever the password."""

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from rest_framework.exceptions import Throttled

from accounts import throttles
from accounts.usernames import username_normalize


class _LockedOut:
    """Over an AuthenticationForm: the account's lock-out first, then Django's check, counted."""

    def clean(self):
        username = username_normalize(self.data.get("username") or "")
        try:
            throttles.login_failures_check(username=username)
        except Throttled as exc:
            raise forms.ValidationError(
                "Too many wrong passwords; try again later.", code="throttled"
            ) from exc
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            throttles.login_failure_record(username=username)
            raise
        throttles.login_failures_clear(username=username)
        return cleaned


class ThrottledAuthenticationForm(_LockedOut, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(_LockedOut, AdminAuthenticationForm):
    pass


class OAuthLoginView(LoginView):
    template_name = "oauth/login.html"
    form_class = ThrottledAuthenticationForm
