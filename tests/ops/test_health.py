"""Probes: /healthz touches nothing; /readyz checks the database, migrations, broker and Redis and
names what fails, in the one error shape."""

import socket

import pytest
from django.db import connection

from config.celery import app as celery_app
from infra import health
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_readyz_is_200_when_everything_answers(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    checks = response.json()["checks"]
    assert checks["database"] == "ok"
    assert checks["migrations"] == "ok"
    assert set(checks) == {"database", "migrations", "broker", "redis"}


def test_readyz_names_the_database_when_it_is_unreachable(client, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
    monkeypatch.setitem(connection.settings_dict, "PORT", closed_port())
    body = assert_error(client.get("/readyz"), 503, "service_unavailable")
    assert body["extra"]["failing"] == ["database"]
    assert body["extra"]["checks"]["database"].startswith("failed")
    assert body["extra"]["checks"]["migrations"].startswith("skipped")
    assert "database" in body["message"]
    # The reason stays generic: no address, port or database name for whoever reaches the probe.
    assert str(connection.settings_dict["PORT"]) not in str(body)


def test_healthz_does_not_depend_on_the_database(client, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "PORT", closed_port())
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_names_redis_when_the_wakeup_redis_is_unreachable(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    body = assert_error(client.get("/readyz"), 503, "service_unavailable")
    assert body["extra"]["failing"] == ["redis"]
    assert body["extra"]["checks"]["database"] == "ok"


def test_readyz_names_the_broker_when_it_is_unreachable(client, monkeypatch):
    monkeypatch.setattr(celery_app.conf, "broker_url", f"redis://127.0.0.1:{closed_port()}/0")
    body = assert_error(client.get("/readyz"), 503, "service_unavailable")
    assert body["extra"]["failing"] == ["broker"]


def test_readyz_names_migrations_when_one_on_disk_is_not_applied(client, monkeypatch):
    on_disk = {**health.migrations_on_disk(), ("games", "9999_not_applied"): ()}
    monkeypatch.setattr(health, "migrations_on_disk", lambda: on_disk)
    body = assert_error(client.get("/readyz"), 503, "service_unavailable")
    assert body["extra"]["failing"] == ["migrations"]
    assert body["extra"]["checks"]["migrations"] == "failed: 1 not applied"


def test_a_squash_counts_as_applied_when_what_it_replaces_is(monkeypatch):
    on_disk = {
        ("a", "0001"): (),
        ("a", "0002"): (),
        ("a", "0001_squashed_0002"): (("a", "0001"), ("a", "0002")),
    }
    monkeypatch.setattr(health, "migrations_on_disk", lambda: on_disk)
    assert health.pending_migrations({("a", "0001"), ("a", "0002")}) == []
    assert health.pending_migrations({("a", "0001_squashed_0002")}) == []
    assert health.pending_migrations({("a", "0001")}) == [("a", "0001_squashed_0002"), ("a", "0002")]


def test_readyz_runs_only_the_configured_checks(client, settings, monkeypatch):
    settings.READYZ_CHECKS = ["database"]
    monkeypatch.setattr(celery_app.conf, "broker_url", f"redis://127.0.0.1:{closed_port()}/0")
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok"}


def test_probes_answer_a_host_that_is_not_allowed(client):
    # An orchestrator calls the pod by its address; the API itself still refuses that Host.
    for path in ("/healthz", "/readyz"):
        assert client.get(path, HTTP_HOST="10.1.2.3:8000").status_code == 200
    assert_error(client.get("/api/v1/me", HTTP_HOST="10.1.2.3:8000"), 400, "invalid_request")


def test_probes_accept_only_get(client):
    for path in ("/healthz", "/readyz", "/metrics"):
        response = client.post(path)
        assert_error(response, 405, "method_not_allowed")
        assert response["Allow"] == "GET, HEAD"


def test_probes_are_not_in_the_openapi_schema(client, make_user, make_client):
    _, token = make_user()
    schema = make_client(token).get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert paths and not any(word in path for path in paths for word in ("healthz", "readyz", "metrics"))


def test_readyz_gives_up_on_a_database_that_accepts_but_never_answers(client, monkeypatch, settings):
    settings.READYZ_TIMEOUT = 0.3
    # A listening socket nobody accepts on: the TCP handshake succeeds, PostgreSQL's greeting never comes.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        monkeypatch.setitem(connection.settings_dict, "PORT", silent.getsockname()[1])
        body = assert_error(client.get("/readyz"), 503, "service_unavailable")
    assert body["extra"]["failing"] == ["database"]
    assert body["extra"]["checks"]["database"] == "failed: timed out"
