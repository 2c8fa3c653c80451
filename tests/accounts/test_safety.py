"""Account safety (issue 10 item 7): usernames, guest names, token expiry, sign-out everywhere,
rate limits per address and per account."""

from datetime import UTC, datetime, timedelta

import pytest

from accounts.models import AuthToken, User
from tests.conftest import assert_error
from tests.moderation.helpers import Clock

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-pass"


def _register(client, username):
    return client.post("/api/v1/auth/register", {"username": username, "password": PASSWORD}, format="json")


def _rates(settings, **rates):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


@pytest.mark.parametrize("other", ["Alice", "ALICE", "ａｌｉｃｅ", "Ａlice"])
def test_a_name_differing_only_in_case_or_width_is_taken(make_client, other):
    assert _register(make_client(), "alice").status_code == 201
    body = assert_error(_register(make_client(), other), 400, "invalid_request")
    assert body["extra"] == {"fields": {"username": ["taken"]}}
    assert User.objects.count() == 1


def test_login_finds_the_account_in_any_case_or_width(make_client):
    _register(make_client(), "Alice")
    for name in ("alice", "ALICE", "ａｌｉｃｅ"):
        response = make_client().post(
            "/api/v1/auth/token", {"username": name, "password": PASSWORD}, format="json"
        )
        assert response.status_code == 200, name


def test_fullwidth_name_is_stored_normalised(make_client):
    response = _register(make_client(), "ｌｉｈｕａ")
    assert response.status_code == 201 and response.json()["user"]["username"] == "lihua"


def test_database_refuses_a_case_clash_whatever_the_path():
    from django.db import IntegrityError, transaction

    User.objects.create_user(username="bob", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="BOB", password=PASSWORD)


@pytest.mark.parametrize("name", ["guest-000000000001", "Guest-abc", "GUEST-x", "ｇｕｅｓｔ-1"])
def test_guest_prefix_is_reserved(make_client, name):
    body = assert_error(_register(make_client(), name), 400, "invalid_request")
    assert body["extra"] == {"fields": {"username": ["reserved"]}}
    assert not User.objects.exists()


def test_guests_still_get_guest_names(make_client):
    body = make_client().post("/api/v1/auth/guest").json()
    assert body["user"]["username"].startswith("guest-") and body["user"]["is_guest"] is True


def test_a_token_expires_after_the_ttl_without_use(make_client, make_user, monkeypatch, settings):
    settings.TOKEN_TTL_DAYS = 30
    clock = Clock(monkeypatch, datetime(2026, 12, 1, tzinfo=UTC))
    _, token = make_user()
    clock.set(datetime(2026, 12, 30, 23, tzinfo=UTC))
    assert make_client(token).get("/api/v1/me").status_code == 200
    # That use slid the expiry to 30 days from it.
    clock.set(datetime(2027, 1, 29, 22, tzinfo=UTC))
    assert make_client(token).get("/api/v1/me").status_code == 200
    clock.set(datetime(2027, 2, 28, 23, tzinfo=UTC))
    assert_error(make_client(token).get("/api/v1/me"), 401, "not_authenticated")


def test_a_token_not_used_for_the_ttl_is_refused(make_client, make_user, monkeypatch, settings):
    settings.TOKEN_TTL_DAYS = 2
    clock = Clock(monkeypatch, datetime(2026, 12, 1, tzinfo=UTC))
    _, token = make_user()
    clock.set(datetime(2026, 12, 3, 0, 0, 1, tzinfo=UTC))
    assert_error(make_client(token).get("/api/v1/me"), 401, "not_authenticated")


def test_tokens_are_stored_hashed_with_an_expiry(make_client):
    token = _register(make_client(), "carol").json()["token"]
    row = AuthToken.objects.get()
    assert token not in row.key_hash and row.key_hash == AuthToken.hash_key(token)
    assert row.expires_at > row.created_at + timedelta(days=29)


def test_logout_all_revokes_every_token_of_the_user_only(make_client, make_user):
    user, first = make_user()
    login = {"username": user.username, "password": "correct-horse-9"}
    second = make_client().post("/api/v1/auth/token", login, format="json").json()["token"]
    _, other = make_user()
    assert make_client(first).post("/api/v1/auth/logout-all").status_code == 204
    assert_error(make_client(first).get("/api/v1/me"), 401, "not_authenticated")
    assert_error(make_client(second).get("/api/v1/me"), 401, "not_authenticated")
    assert make_client(other).get("/api/v1/me").status_code == 200


def test_forged_forwarded_for_does_not_escape_the_address_limit(make_client, settings):
    _rates(settings, auth="3/min")
    client = make_client()
    answers = [
        client.post("/api/v1/auth/guest", HTTP_X_FORWARDED_FOR=f"10.0.{n}.1").status_code for n in range(6)
    ]
    assert answers == [201, 201, 201, 429, 429, 429]
    assert User.objects.count() == 3


def test_the_address_limit_counts_per_socket_address(make_client, settings):
    _rates(settings, auth="2/min")
    client = make_client()
    for address in ("192.0.2.1", "192.0.2.2"):
        assert client.post("/api/v1/auth/guest", REMOTE_ADDR=address).status_code == 201
        assert client.post("/api/v1/auth/guest", REMOTE_ADDR=address).status_code == 201
        assert_error(client.post("/api/v1/auth/guest", REMOTE_ADDR=address), 429, "throttled")


def test_with_one_trusted_proxy_the_address_it_appended_counts(make_client, settings):
    _rates(settings, auth="1/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = make_client()
    # The client wrote "6.6.6.6" itself; the proxy appended the real address last.
    assert client.post("/api/v1/auth/guest", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7").status_code == 201
    assert_error(
        client.post("/api/v1/auth/guest", HTTP_X_FORWARDED_FOR="7.7.7.7, 198.51.100.7"), 429, "throttled"
    )
    assert client.post("/api/v1/auth/guest", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.8").status_code == 201


def test_guest_accounts_have_their_own_limit_per_address(make_client, settings):
    _rates(settings, guest="2/hour")
    client = make_client()
    assert [client.post("/api/v1/auth/guest").status_code for _ in range(3)] == [201, 201, 429]
    # Registering is not a guest account: the guest limit leaves it alone.
    assert _register(client, "dora").status_code == 201


def test_wrong_passwords_lock_the_account_from_every_address(make_client, make_user, settings):
    settings.LOGIN_FAILURES_MAX = 10
    user, _ = make_user(username="erin")
    tokens = AuthToken.objects.count()
    answers = []
    for attempt in range(50):
        response = make_client().post(
            "/api/v1/auth/token",
            {"username": "ERIN" if attempt % 2 else "erin", "password": f"guess-{attempt}"},
            format="json",
            REMOTE_ADDR=f"203.0.113.{attempt}",
            HTTP_X_FORWARDED_FOR=f"10.1.1.{attempt}",
        )
        answers.append(response.status_code)
        if response.status_code == 429:
            assert int(response.headers["Retry-After"]) > 0
    assert answers == [401] * 10 + [429] * 40
    # Locked: even the right password is refused, without being checked.
    right = make_client().post(
        "/api/v1/auth/token", {"username": "erin", "password": "correct-horse-9"}, format="json"
    )
    assert_error(right, 429, "throttled")
    assert AuthToken.objects.count() == tokens
    # Another account is not affected.
    make_user(username="frank")
    ok = make_client().post(
        "/api/v1/auth/token", {"username": "frank", "password": "correct-horse-9"}, format="json"
    )
    assert ok.status_code == 200


def test_the_lock_ends_with_its_window_and_a_success_clears_the_count(
    make_client, make_user, settings, monkeypatch
):
    # A clock of our own for the failure window and the cache's expiry (both read time.time()),
    # so that a slow machine cannot end the window early.
    clock = {"now": 1_000_000.0}
    monkeypatch.setattr("time.time", lambda: clock["now"])
    settings.LOGIN_FAILURES_MAX = 2
    settings.LOGIN_FAILURES_WINDOW_SECONDS = 900
    make_user(username="gina")
    wrong = {"username": "gina", "password": "nope-nope-1"}
    right = {"username": "gina", "password": "correct-horse-9"}
    client = make_client()
    answers = [client.post("/api/v1/auth/token", wrong, format="json") for _ in range(3)]
    assert [a.status_code for a in answers] == [401, 401, 429]
    assert answers[2].headers["Retry-After"] == "901"
    clock["now"] += 899
    assert client.post("/api/v1/auth/token", right, format="json").status_code == 429
    clock["now"] += 2
    assert client.post("/api/v1/auth/token", wrong, format="json").status_code == 401
    assert client.post("/api/v1/auth/token", right, format="json").status_code == 200
    assert client.post("/api/v1/auth/token", wrong, format="json").status_code == 401
    assert client.post("/api/v1/auth/token", right, format="json").status_code == 200


def test_no_spelling_of_a_name_gets_past_its_lock(make_client, make_user, settings):
    """The probe's bypass: after the lock, `HX_OUTSİDER` (U+0130) signed in with the right password,
    because the database folded `İ` to `i` and the lock-out keyed on Python's `lower()`. One form of a
    name (accounts/usernames.py) for the lookup, the lock and the uniqueness."""
    settings.LOGIN_FAILURES_MAX = 10
    user, _ = make_user(username="HX_OUTSIDER")
    tokens = AuthToken.objects.filter(user=user).count()
    for attempt in range(10):
        wrong = {"username": "hx_outsider", "password": f"guess-{attempt}"}
        assert make_client().post("/api/v1/auth/token", wrong, format="json").status_code == 401
    for spelling in ("HX_OUTSİDER", "hx_outsider", "HX_OUTSIDER", "ＨＸ_ＯＵＴＳＩＤＥＲ", "hx_outſider"):
        right = {"username": spelling, "password": "correct-horse-9"}
        response = make_client().post("/api/v1/auth/token", right, format="json")
        assert response.status_code != 200, spelling
        assert response.json()["code"] in ("throttled", "not_authenticated"), spelling
    assert AuthToken.objects.filter(user=user).count() == tokens


@pytest.mark.parametrize(
    ("first", "second"),
    [("bob", "BOB"), ("straße", "STRASSE"), ("ǅemal", "ǆemal"), ("ｌｉｈｕａ", "LiHua"), ("Σοφία", "σοφία")],
)
def test_names_that_compare_equal_cannot_both_register(make_client, first, second):
    assert _register(make_client(), first).status_code == 201
    body = assert_error(_register(make_client(), second), 400, "invalid_request")
    assert body["extra"] == {"fields": {"username": ["taken"]}}
    # And each spelling signs in to the one account.
    login = {"username": second, "password": PASSWORD}
    assert make_client().post("/api/v1/auth/token", login, format="json").status_code == 200
