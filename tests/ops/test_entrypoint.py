"""The image: its Dockerfile passes hadolint, its entrypoint maps each role to the right command, the
web role's gunicorn settings take the worker count from the cores, the compose file wires the roles."""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

BASE_DIR = Path(__file__).resolve().parent.parent.parent
ENTRYPOINT = BASE_DIR / "docker" / "entrypoint.sh"
HADOLINT = Path(sys.executable).with_name("hadolint")


def dry_run(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "ENTRYPOINT_DRY_RUN": "1", **env}
    environment.pop("LOG_LEVEL", None)
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environment.update(env)
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args], env=environment, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize(
    ("role", "command"),
    [
        ("web", "gunicorn --config python:config.gunicorn"),
        ("worker", "celery -A config --quiet worker --loglevel INFO --without-gossip --without-mingle"),
        ("beat", "celery -A config --quiet beat --loglevel INFO --schedule /app/var/celerybeat-schedule"),
        ("migrate", "python manage.py migrate --noinput"),
    ],
)
def test_each_role_runs_its_command(role, command):
    result = dry_run(role)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == command


def test_without_a_role_the_container_serves_the_web():
    assert dry_run().stdout.strip() == "gunicorn --config python:config.gunicorn"


def test_extra_arguments_and_settings_reach_the_command():
    assert dry_run("worker", "--concurrency", "4", LOG_LEVEL="WARNING").stdout.strip() == (
        "celery -A config --quiet worker --loglevel WARNING --without-gossip --without-mingle --concurrency 4"
    )
    assert dry_run("beat", VAR_DIR="/data").stdout.strip().endswith("--schedule /data/celerybeat-schedule")
    assert dry_run("manage", "createsuperuser").stdout.strip() == "python manage.py createsuperuser"


@pytest.mark.parametrize("role", ["shell", "bash", "webb", "--help"])
def test_an_unknown_role_fails(role):
    result = dry_run(role)
    assert result.returncode == 64
    assert result.stdout == ""
    assert f"unknown role: {role}" in result.stderr


def test_the_entrypoint_empties_the_metrics_folder_of_an_earlier_run(tmp_path):
    stale = tmp_path / "counter_123.db"
    stale.write_bytes(b"old")
    keep = tmp_path / "notes.txt"
    keep.write_text("not ours")
    # Not a dry run: `true` stands in for gunicorn, so the folder is prepared and the role "runs".
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "gunicorn").write_text("#!/bin/sh\nexit 0\n")
    (fake_bin / "gunicorn").chmod(0o755)
    environment = {
        **os.environ,
        "PATH": f"{fake_bin}:{os.environ['PATH']}",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
    }
    environment.pop("ENTRYPOINT_DRY_RUN", None)
    result = subprocess.run(["sh", str(ENTRYPOINT), "web"], env=environment, capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert not stale.exists() and keep.exists()


def test_the_dockerfile_passes_hadolint():
    result = subprocess.run(
        [str(HADOLINT), "--no-color", str(BASE_DIR / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_runs_as_a_user_and_without_build_tools():
    text = (BASE_DIR / "Dockerfile").read_text()
    stages = re.split(r"(?m)^FROM ", text)[1:]
    assert len(stages) == 2, "multi-stage: build, then run"
    run_stage = stages[-1]
    assert re.search(r"(?m)^USER 10001:10001$", run_stage)
    assert "COPY --from=build /opt/venv /opt/venv" in run_stage
    assert not re.search(r"apt-get|gcc|build-essential|pip install", run_stage)
    assert 'ENTRYPOINT ["baohuang-entrypoint"]' in run_stage
    assert "COPY --chmod=755 docker/entrypoint.sh /usr/local/bin/baohuang-entrypoint" in run_stage


def _gunicorn_settings(monkeypatch, **env):
    for name in ("WEB_CONCURRENCY", "WEB_BIND", "PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    import config.gunicorn

    return importlib.reload(config.gunicorn)


def test_the_web_role_takes_its_worker_count_from_the_cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    settings = _gunicorn_settings(monkeypatch)
    assert settings.workers == 3  # one per core
    assert settings.worker_class == "gthread" and settings.threads == 8
    assert settings.wsgi_app == "config.wsgi:application"
    assert settings.bind == "0.0.0.0:8000"
    assert _gunicorn_settings(monkeypatch, WEB_CONCURRENCY="3", PORT="9000").workers == 3
    assert _gunicorn_settings(monkeypatch, PORT="9000").bind == "0.0.0.0:9000"
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert _gunicorn_settings(monkeypatch).workers == 2  # never fewer than two


def test_the_events_role_runs_uvicorn_workers_at_least_two(monkeypatch):
    # Two at least: opening a stream costs one process's CPU (a read of the log), and a thousand
    # streams reconnecting at once queue behind one process (docs/scaling.md "The events role").
    for name in ("EVENTS_CONCURRENCY", "EVENTS_BIND", "EVENTS_PORT"):
        monkeypatch.delenv(name, raising=False)
    import config.gunicorn_events

    for cores, expected in (({0}, 2), ({0, 1}, 2), (set(range(8)), 4)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cores=cores: cores, raising=False)
        settings = importlib.reload(config.gunicorn_events)
        assert settings.workers == expected, cores
    assert settings.wsgi_app == "config.asgi:events_application"
    assert settings.bind == "0.0.0.0:8001"
    monkeypatch.setenv("EVENTS_CONCURRENCY", "1")
    assert importlib.reload(config.gunicorn_events).workers == 1


def test_compose_runs_every_role_against_postgres_and_redis():
    compose = yaml.safe_load((BASE_DIR / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "web", "worker", "beat"} <= set(services)
    for role in ("migrate", "web", "worker", "beat"):
        assert services[role]["command"] == [role]
        environment = services[role]["environment"]
        assert (
            environment["DATABASE_URL"].startswith("postgres://")
            and "@postgres:5432/" in environment["DATABASE_URL"]
        )
        assert environment["CELERY_BROKER_URL"].startswith("redis://redis:")
    for role in ("web", "worker", "beat"):
        assert services[role]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "readyz" in " ".join(services["web"]["healthcheck"]["test"])
