"""The web role's production profile gives each worker a connection pool unless the deployment chose
(config/gunicorn.py; docs/scaling.md "The production profile")."""

import importlib


def _gunicorn_settings(monkeypatch, **env):
    for name in ("DB_POOL_MAX_SIZE", "DB_CONN_MAX_AGE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    import config.gunicorn

    return importlib.reload(config.gunicorn)


def test_the_web_role_gets_a_pool_of_eight_per_worker_by_default(monkeypatch):
    assert _gunicorn_settings(monkeypatch).raw_env == ["DB_POOL_MAX_SIZE=8"]


def test_a_pool_size_or_persistent_connections_chosen_by_the_deployment_win(monkeypatch):
    assert _gunicorn_settings(monkeypatch, DB_POOL_MAX_SIZE="8").raw_env == []
    assert _gunicorn_settings(monkeypatch, DB_POOL_MAX_SIZE="0").raw_env == []
    assert _gunicorn_settings(monkeypatch, DB_CONN_MAX_AGE="60").raw_env == []
    assert _gunicorn_settings(monkeypatch, DB_CONN_MAX_AGE="0").raw_env == ["DB_POOL_MAX_SIZE=8"]


def test_loading_the_settings_does_not_change_this_process_environment(monkeypatch):
    import os

    _gunicorn_settings(monkeypatch)
    assert "DB_POOL_MAX_SIZE" not in os.environ


def test_each_worker_freezes_what_it_loaded_and_collects_young_objects_less_often(monkeypatch):
    """config/gunicorn.py post_worker_init: gc.freeze() after the app is loaded, and the thresholds
    of WEB_GC_THRESHOLD (docs/scaling.md "Garbage collection"); "" keeps Python's own."""
    import gc

    import pytest

    settings = _gunicorn_settings(monkeypatch)
    assert settings.gc_threshold(settings.DEFAULT_GC_THRESHOLD) == (50000, 50, 100)
    assert settings.gc_threshold("") is None and settings.gc_threshold("2000") == (2000,)
    for bad in ("a,b", "1,2,3,4", "-1"):
        with pytest.raises(ValueError):
            settings.gc_threshold(bad)
    before = gc.get_threshold()
    try:
        monkeypatch.setenv("WEB_GC_THRESHOLD", "12345,6,7")
        settings.post_worker_init(worker=None)
        assert gc.get_threshold() == (12345, 6, 7) and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
