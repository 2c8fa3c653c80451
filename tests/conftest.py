"""Fixtures shared by the service tests (tests/engine needs none of them)."""

import itertools
import os

import pytest

_names = itertools.count()


def _transactional(item) -> bool:
    """pytest-django's own test (its `get_order_number`): this test flushes the database after it runs."""
    marker = item.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")):
        return True
    return bool({"transactional_db", "live_server"} & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """xdist groups (tests/parallel.py): with `-n`, scripts/test runs `--dist loadgroup`, and each
    process runs whole groups. A module's tests that flush the database (transactional) are a group
    of their own apart from its other tests, so that a long module's flushing tests and the rest may
    run on two processes; the modules sharing a Redis database stay one group. The order in which
    groups are handed out is `_longest_groups_first`'s. Marked first: pytest-xdist's own hook reads
    the marks into the node ids."""
    from pathlib import Path

    from tests.parallel import GROUP_OF, group_of

    # xdist's workers collect and run the tests (its controller collects nothing), and a worker's own
    # options say `dist = "no"`: the documented PYTEST_XDIST_WORKER tells a worker.
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # one process: pytest-django's order alone
    root = Path(config.rootpath)
    for item in items:
        module = Path(item.path).relative_to(root).as_posix()
        flushes = _transactional(item)
        shared = module in GROUP_OF
        group = group_of(module) if shared or not flushes else f"{module}#flushes"
        item.add_marker(pytest.mark.xdist_group(group))


class _LongestGroupsFirst:
    """Under xdist, the groups in the order a process should take them: longest first (tests/parallel.py
    GROUP_SECONDS), each group's tests in the order pytest-django gave them. Last of the collection's
    hooks, after pytest-django's sort; scripts/test runs with --no-loadscope-reorder, so xdist hands
    the groups out in this order."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        from tests.parallel import group_seconds

        def seconds(item) -> int:
            mark = item.get_closest_marker("xdist_group")
            return group_seconds(mark.args[0]) if mark else 0

        items.sort(key=lambda item: -seconds(item))  # stable: a group's tests keep their order


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(_LongestGroupsFirst(), "longest-groups-first")


def require_local_redis(url: str = "redis://127.0.0.1:6379/14") -> None:
    """Stop the test unless the local Redis answers: scripts/test starts one, so in CI (`CI` set)
    a missing Redis fails the test; on a developer's machine without one it is skipped."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
    except Exception:  # noqa: BLE001
        (pytest.fail if os.environ.get("CI") else pytest.skip)("no Redis on 127.0.0.1:6379")


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Rate-limit counters live in the cache (accounts/throttles.py): each test starts with none.
    Without pytest-django (`-p no:django`, as scripts/test runs tests/engine) there is no Django to
    clear: the engine's tests run with the engine alone."""
    if not request.config.pluginmanager.has_plugin("django"):
        yield
        return
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_user(db):
    """A user with a token: `make_user(staff=False, banned=False)` -> (user, token)."""
    from accounts import services
    from accounts.models import Sanction, SanctionKind, User

    def make(*, staff: bool = False, banned: bool = False, username: str | None = None):
        name = username or f"player{next(_names)}"
        user = User.objects.create_user(username=name, password="correct-horse-9", is_staff=staff)
        if banned:
            Sanction.objects.create(user=user, kind=SanctionKind.BAN, reason="test ban")
        return user, services.token_create(user=user)

    return make


def established(users) -> None:
    """Back-date `users` to accounts registered a month ago: a deal they play can be rated
    (docs/matchmaking.md "Rated deals": an account made for the deal is not counted)."""
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import User

    User.objects.filter(pk__in=[user.pk for user in users]).update(
        date_joined=timezone.now() - timedelta(days=30)
    )


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
    """The one error shape (docs/client-guide.md §7)."""
    assert response.status_code == status, (response.status_code, getattr(response, "content", b"")[:500])
    body = response.json()
    assert set(body) == {"code", "message", "extra"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and isinstance(body["extra"], dict)
    return body


@pytest.fixture
def make_table(make_user, make_client):
    """A table created by a staff user and filled by five players.

    `make_table(preset="weihai", setups=None, private=False, deals=None, options=None)` -> dict with
    `table` (id), `game` (current game id), `tokens`/`clients`/`users` by seat, `staff` client.
    """

    def make(
        *, preset: str = "weihai", setups=None, private: bool = False, deals=None, options=None, **extra
    ):
        _, staff_token = make_user(staff=True)
        staff = make_client(staff_token)
        payload = {"preset": preset, "private": private, "options": options or {}, **extra}
        if setups is not None:
            payload["setups"] = setups
        if deals is not None:
            payload["deals"] = deals
        created = staff.post("/api/v1/tables", payload, format="json")
        assert created.status_code == 201, created.json()
        table = created.json()
        users, tokens, clients = [], [], []
        for seat in range(5):
            user, token = make_user()
            client = make_client(token)
            joined = client.post(
                f"/api/v1/tables/{table['id']}/join", {"code": table["code"], "seat": seat}, format="json"
            )
            assert joined.status_code == 200, joined.json()
            users.append(user)
            tokens.append(token)
            clients.append(client)
        detail = staff.get(f"/api/v1/tables/{table['id']}").json()
        return {
            "table": table["id"],
            "code": table["code"],
            "game": detail["current_game"],
            "users": users,
            "tokens": tokens,
            "clients": clients,
            "staff": staff,
        }

    return make


def deal_end_steps(*, pause_over: bool = True) -> int:
    """Run the table's steps after a deal's end as the worker would once the test's transaction
    commits (the `db` fixture never commits, so no task is sent): take every finished deal for its
    table (matchmaking.services.table_deal_end) and, with `pause_over`, end the pause between deals
    now (`next_deal_at` moved to this moment, as a test moves any deadline) and deal the next deal
    (table_deal_next). Returns how many steps ran."""
    from django.utils import timezone

    from games.models import Game
    from matchmaking import services
    from matchmaking.models import Table, TableStatus

    steps = sum(
        services.table_deal_end(game_id=pk)
        for pk in Game.objects.filter(table_pending=True).order_by("finished_at").values_list("pk", flat=True)
    )
    if not pause_over:
        return steps
    due = Table.objects.filter(status=TableStatus.PLAYING, next_deal_at__isnull=False)
    due.update(next_deal_at=timezone.now())
    return steps + sum(services.table_deal_next(table_id=pk) for pk in list(due.values_list("pk", flat=True)))


def feed_entries(client, type_: str) -> list[dict]:
    """The entries of one type in the caller's whole feed (`GET me/events`), page after page."""
    entries, after = [], 0
    while True:
        response = client.get("/api/v1/me/events", {"after": after})
        assert response.status_code == 200, response.json()
        page = response.json()
        if not page["events"]:
            return [entry for entry in entries if entry["type"] == type_]
        entries += page["events"]
        after = page["last_seq"]
