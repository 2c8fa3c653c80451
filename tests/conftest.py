"""Fixtures shared by the service tests (tests/engine needs none of them)."""

import itertools

import pytest

_names = itertools.count()


@pytest.fixture
def make_user(db):
    """A user with a token: `make_user(staff=False, banned=False)` -> (user, token)."""
    from accounts import services
    from accounts.models import User

    def make(*, staff: bool = False, banned: bool = False, username: str | None = None):
        name = username or f"player{next(_names)}"
        user = User.objects.create_user(username=name, password="correct-horse-9", is_staff=staff, banned=banned)
        return user, services.token_create(user=user)

    return make


@pytest.fixture
def make_client():
    """An API client sending `Authorization: Bearer <token>` when given a token."""
    from rest_framework.test import APIClient

    def make(token: str | None = None) -> APIClient:
        client = APIClient()
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client

    return make


def assert_error(response, status: int, code: str) -> dict:
    """The one error shape (CONTRACT §3)."""
    assert response.status_code == status, (response.status_code, getattr(response, "content", b"")[:500])
    body = response.json()
    assert set(body) == {"code", "message", "extra"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and isinstance(body["extra"], dict)
    return body
