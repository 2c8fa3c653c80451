"""A user holds at most PERSONAL_TOKENS_PER_USER personal access tokens that still work
(docs/integrations.md, docs/security.md "Per-account caps"): one more is `409 too_many_tokens` and
creates nothing; revoking one makes room; another user is unaffected."""

import pytest

from accounts.models import AuthToken, TokenKind
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def _create(client, name: str):
    return client.post("/api/v1/auth/tokens", {"name": name, "scopes": ["read"]}, format="json")


def test_one_token_past_the_cap_is_409_until_one_is_revoked(make_user, make_client, settings):
    settings.PERSONAL_TOKENS_PER_USER = 3
    user, login = make_user()
    client = make_client(login)
    created = [_create(client, f"t{n}") for n in range(3)]
    assert [response.status_code for response in created] == [201, 201, 201]
    body = assert_error(_create(client, "one more"), 409, "too_many_tokens")
    assert body["extra"] == {"limit": 3}
    assert AuthToken.objects.filter(user=user, kind=TokenKind.PERSONAL).count() == 3
    _, other = make_user()
    assert _create(make_client(other), "theirs").status_code == 201
    revoked = client.delete(f"/api/v1/auth/tokens/{created[0].json()['id']}")
    assert revoked.status_code == 204
    assert _create(client, "again").status_code == 201
