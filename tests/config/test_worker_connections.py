"""infra/celery_signals.py: a worker keeps its database connections between tasks unless the
deployment chose DB_CONN_MAX_AGE itself. (The real worker's behaviour: tests/games/test_worker.py.)"""

import copy

from django.conf import settings

from config.celery import app
from infra import celery_signals


def test_celery_does_not_close_every_connection_around_every_task():
    # Celery's Django fixup reads this under its old name: set, it stops closing per task.
    assert app.conf.get("CELERY_DB_REUSE_MAX") >= 10**6


def test_the_worker_keeps_connections_by_default(monkeypatch):
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    databases = copy.deepcopy(settings.DATABASES)
    databases["default"]["CONN_MAX_AGE"] = 0
    monkeypatch.setattr(settings, "DATABASES", databases)
    celery_signals._keep_database_connections()
    assert databases["default"]["CONN_MAX_AGE"] == celery_signals.WORKER_DB_CONN_MAX_AGE
    assert databases["default"]["CONN_HEALTH_CHECKS"] is True


def test_a_deployments_own_choice_stands(monkeypatch):
    monkeypatch.setenv("DB_CONN_MAX_AGE", "0")
    databases = copy.deepcopy(settings.DATABASES)
    databases["default"]["CONN_MAX_AGE"] = 0
    monkeypatch.setattr(settings, "DATABASES", databases)
    celery_signals._keep_database_connections()
    assert databases["default"]["CONN_MAX_AGE"] == 0
    assert databases["default"]["CONN_HEALTH_CHECKS"] is True


def test_the_worker_does_not_use_the_serving_roles_pool(monkeypatch):
    # DB_POOL_MAX_SIZE may be set for every role (deploy/compose.yaml); the worker keeps its own
    # connections instead (a pool would leave its task threads queued after an outage).
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    databases = copy.deepcopy(settings.DATABASES)
    databases["default"]["CONN_MAX_AGE"] = 0
    databases["default"]["OPTIONS"] = {"pool": {"min_size": 1, "max_size": 4}, "sslmode": "prefer"}
    monkeypatch.setattr(settings, "DATABASES", databases)
    celery_signals._keep_database_connections()
    assert databases["default"]["OPTIONS"] == {"sslmode": "prefer"}
    assert databases["default"]["CONN_MAX_AGE"] == celery_signals.WORKER_DB_CONN_MAX_AGE
