"""The pages that check a password besides `POST auth/token`: the sign-in in front of the OAuth
consent page (`/o/login/`), the admin's sign-in (`/admin/login/`) and the admin's password change
(`/admin/password_change/`, which checks the old password).

They count wrong passwords like `POST auth/token` does (accounts/throttles.py), so that no page is a
way around the lock-out: after LOGIN_FAILURES_MAX failures an account's passwords are refused for the
window on every page, the right one included. No other path checks a password (docs/security.md):
OAuth has no password grant (accounts/oauth_grants.py)."""

from collections.abc import Callable

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm, AdminPasswordChangeForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from rest_framework.exceptions import Throttled

from accounts import throttles
from accounts.usernames import username_normalize


def _password_counted(*, username: str, check: Callable[[], object]):
    """Django's password `check` (a ValidationError when wrong) under the account's lock-out: refused
    unchecked while locked, a failure counted, a success clearing the count."""
    try:
        throttles.login_failures_check(username=username)
    except Throttled as exc:
        raise forms.ValidationError("Too many wrong passwords; try again later.", code="throttled") from exc
    try:
        result = check()
    except forms.ValidationError:
        throttles.login_failure_record(username=username)
        raise
    throttles.login_failures_clear(username=username)
    return result


class _LockedOut:
    """Over an AuthenticationForm: the account's lock-out first, then Django's check, counted."""

    def clean(self):
        username = username_normalize(self.data.get("username") or "")
        return _password_counted(username=username, check=super().clean)


class ThrottledAuthenticationForm(_LockedOut, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(_LockedOut, AdminAuthenticationForm):
    pass


class ThrottledAdminPasswordChangeForm(AdminPasswordChangeForm):
    def clean_old_password(self):
        return _password_counted(username=self.user.get_username(), check=super().clean_old_password)


class OAuthLoginView(LoginView):
    template_name = "oauth/login.html"
    form_class = ThrottledAuthenticationForm
