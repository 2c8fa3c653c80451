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


def test_each_worker_freezes_what_it_loaded(monkeypatch):
    """config/gunicorn_common.py post_worker_init: gc.freeze() once the app is loaded, so the
    collector never walks the modules, settings and URL patterns again."""
    import gc

    settings = _gunicorn_settings(monkeypatch)
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        settings.post_worker_init(worker=None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
