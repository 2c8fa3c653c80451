"""The production roles behind the shipped proxy configuration (deploy/nginx.conf, docs/deploy.md
"Topology"): web (gunicorn, threaded WSGI), events (the event server), a Celery worker and beat, nginx
in front. A guest quick-matches with bots and plays a whole deal through the proxy; the followed
logs are served by the event server and everything else by web; a client-written X-Forwarded-For
buys no extra tries at a throttled endpoint.
"""

import contextlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.games.worker import Worker, database_url, flush_redis
from tests.ops.server import BASE_DIR, BIN, REDIS, free_port, require_services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery_worker]

BROKER = "redis://127.0.0.1:6379/11"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _environment(extra: dict | None = None) -> dict:
    environment = {
        **os.environ,
        # The production profile, as deploy/compose.yaml runs it.
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "deployment-test-only",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "GUEST_THROTTLE_RATE": "10/min",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": REDIS,
        "CELERY_BROKER_URL": BROKER,
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "NUM_PROXIES": "1",
        "MATCHMAKING_BOTS_AFTER": "0.5",
        "MATCHMAKING_INTERVAL": "0.5",
        "BOTS_DELAY_SECONDS": "0",
        "WEB_CONCURRENCY": "1",
        "EVENTS_CONCURRENCY": "1",
    }
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environment.update(extra or {})
    return environment


def _proxy_config(source: str, *, port: int, web: int, events: int, workdir: Path) -> str:
    """deploy/nginx.conf as shipped, with this test's addresses, inside a main configuration of
    its own (a process of our own, files under `workdir`)."""
    site = source.replace("server web:8000;", f"server 127.0.0.1:{web};")
    site = site.replace("server events:8001;", f"server 127.0.0.1:{events};")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    assert f"127.0.0.1:{web}" in site and f"127.0.0.1:{events}" in site and f":{port};" in site
    # Started as root, nginx runs its workers as nobody, who cannot write a large request body's
    # buffer file under `workdir`.
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""
daemon off;
{user}
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log;
events {{ worker_connections 256; }}
http {{
    access_log {workdir}/nginx-access.log;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
{site}
}}
"""


@contextlib.contextmanager
def _process(command: list[str], log_path: Path, env: dict):
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield process
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _call(port: int, method: str, path: str, *, token=None, body=None, headers=None, timeout=40.0):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=sent)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _wait_up(port: int, processes, logs, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for process, log in zip(processes, logs, strict=True):
            if process.poll() is not None:
                raise AssertionError(f"{log.name} exited:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            if _call(port, "GET", "/readyz", timeout=3)[0] == 200:
                return
        time.sleep(0.3)
    raise AssertionError("not up:\n" + "\n".join(log.read_text()[-1500:] for log in logs))


def _access_paths(log: Path) -> list[str]:
    paths = []
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if entry.get("path"):
                paths.append(entry["path"])
    return paths


@contextlib.contextmanager
def _roles(tmp_path, env, *, web_port: int, events_port: int, logs: dict):
    """The web and events roles on gunicorn as the image runs them, and nginx with tmp_path's config."""
    gunicorn = str(BIN / "gunicorn")
    with (
        _process(
            [gunicorn, "-c", "python:config.gunicorn", "-b", f"127.0.0.1:{web_port}"], logs["web"], env
        ) as web,
        _process(
            [gunicorn, "-c", "python:config.gunicorn_events", "-b", f"127.0.0.1:{events_port}"],
            logs["events"],
            env,
        ) as events,
        _process(
            [NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)], logs["nginx"], env
        ) as nginx,
    ):
        yield web, events, nginx


@pytest.fixture
def deployment(tmp_path):
    require_services()
    if not os.path.exists(NGINX):
        # scripts/test installs nginx: in CI this must run, never be skipped.
        (pytest.fail if os.environ.get("CI") else pytest.skip)("needs nginx")
    flush_redis(BROKER)
    flush_redis(REDIS)  # the throttles' counters of an earlier run
    web_port, events_port, proxy_port = free_port(), free_port(), free_port()
    env = _environment()
    (tmp_path / "nginx.conf").write_text(
        _proxy_config(
            (BASE_DIR / "deploy" / "nginx.conf").read_text(),
            port=proxy_port,
            web=web_port,
            events=events_port,
            workdir=tmp_path,
        )
    )
    logs = {name: tmp_path / f"{name}.log" for name in ("web", "events", "nginx")}
    worker = Worker(
        broker=BROKER,
        database=env["DATABASE_URL"],
        workdir=tmp_path,
        env={
            key: env[key]
            for key in (
                "DJANGO_SETTINGS_MODULE",
                "DJANGO_SECRET_KEY",
                "REDIS_URL",
                "MATCHMAKING_BOTS_AFTER",
                "MATCHMAKING_INTERVAL",
                "BOTS_DELAY_SECONDS",
            )
        },
    )
    with _roles(tmp_path, env, web_port=web_port, events_port=events_port, logs=logs) as (web, events, nginx):
        try:
            worker.start()
            _wait_up(proxy_port, [web, events, nginx], list(logs.values()))
            yield {"port": proxy_port, "web": web_port, "logs": logs, "worker": worker}
        finally:
            worker.kill()
            flush_redis(BROKER)


@pytest.fixture
def proxied_web(tmp_path):
    """web and events behind the shipped proxy, without a worker; guests not throttled."""
    require_services()
    if not os.path.exists(NGINX):
        (pytest.fail if os.environ.get("CI") else pytest.skip)("needs nginx")
    flush_redis(REDIS)
    web_port, events_port, proxy_port = free_port(), free_port(), free_port()
    env = _environment({"GUEST_THROTTLE_RATE": "100000/min", "AUTH_THROTTLE_RATE": "100000/min"})
    (tmp_path / "nginx.conf").write_text(
        _proxy_config(
            (BASE_DIR / "deploy" / "nginx.conf").read_text(),
            port=proxy_port,
            web=web_port,
            events=events_port,
            workdir=tmp_path,
        )
    )
    logs = {name: tmp_path / f"{name}.log" for name in ("web", "events", "nginx")}
    with _roles(tmp_path, env, web_port=web_port, events_port=events_port, logs=logs) as (web, events, nginx):
        _wait_up(proxy_port, [web, events, nginx], list(logs.values()))
        yield {"port": proxy_port, "web": web_port}


def _raw_post(port: int, path: str, body: bytes) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=40)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_oversize_and_unread_bodies_cost_other_clients_nothing(proxied_web):
    """One client sends bodies the application never reads (larger than the API's limit, and as
    large as the limit to a path that answers 401 first) while another creates guests through the
    same proxy: every honest POST is answered 201, none 5xx (nginx reuses its upstream connections
    and never repeats a POST; infra/request_body.py), and the oversize bodies are refused in the
    API's one error shape (deploy/nginx.conf)."""
    port = proxied_web["port"]
    max_bytes = 64 * 1024
    oversize = b'{"pad": "' + b"x" * 70_000 + b'"}'
    at_limit = b'{"pad": "' + b"x" * (max_bytes - 11) + b'"}'
    assert len(at_limit) == max_bytes
    hostile: list[tuple[int, bytes]] = []
    honest: list[tuple[int, bytes]] = []

    def attack():
        for _ in range(40):
            hostile.append(_raw_post(port, "/api/v1/auth/guest", oversize))
            hostile.append(_raw_post(port, "/api/v1/tables", at_limit))

    attacker = threading.Thread(target=attack)
    attacker.start()
    try:
        while attacker.is_alive() or len(honest) < 60:
            honest.append(_raw_post(port, "/api/v1/auth/guest", b"{}"))
    finally:
        attacker.join()
    assert [status for status, _ in honest] == [201] * len(honest), [b for s, b in honest if s != 201][:3]
    assert len(hostile) == 80, hostile[-1:]
    for status, body in hostile[0::2]:
        assert status == 400 and json.loads(body) == {
            "code": "invalid_request",
            "message": f"The request body is larger than {max_bytes} bytes.",
            "extra": {"max_bytes": max_bytes},
        }, (status, body)
    for status, body in hostile[1::2]:
        assert status == 401 and json.loads(body)["code"] == "not_authenticated", (status, body)


def test_https_answers_carry_hsts_and_pages_their_policy(proxied_web):
    """Production settings (docs/deploy.md "HTTPS"): an answer to a request the proxy says came over
    https carries HSTS for a year, this host alone; over plain http none (a client's own
    X-Forwarded-Proto is replaced by nginx). The page carries its Content-Security-Policy, the JSON
    API none."""
    port, web = proxied_web["port"], proxied_web["web"]
    for path, expected in (("/", 200), ("/api/v1/matchmaking/stats", 401)):
        status, headers, _ = _call(web, "GET", path, headers={"X-Forwarded-Proto": "https"})
        assert status == expected and headers["Strict-Transport-Security"] == "max-age=31536000", headers
        status, headers, _ = _call(port, "GET", path, headers={"X-Forwarded-Proto": "https"})
        assert status == expected and "Strict-Transport-Security" not in headers, headers
        assert ("Content-Security-Policy" in headers) is (path == "/"), headers


def _play(port: int, token: str, game_id: int, rng: random.Random) -> dict:
    """Follow the deal's log by long-poll and answer every prompt of this seat with one of its
    legal actions, until the deal ends; the final view."""
    after = 0
    end = time.monotonic() + 240
    while time.monotonic() < end:
        status, _, body = _call(port, "GET", f"/api/v1/games/{game_id}", token=token)
        assert status == 200, body
        view = json.loads(body)
        if view["phase"] in ("over", "void"):
            status, _, body = _call(port, "GET", f"/api/v1/games/{game_id}/final", token=token)
            assert status == 200, body
            return json.loads(body)
        if view["legal_actions"]:
            action = rng.choice(view["legal_actions"])
            status, _, body = _call(
                port,
                "POST",
                f"/api/v1/games/{game_id}/actions",
                token=token,
                body={**action, "expected_version": view["version"]},
            )
            assert status in (200, 409), body  # 409: a timer or a bot moved first
            continue
        status, _, body = _call(
            port, "GET", f"/api/v1/games/{game_id}/events?after={after}&wait=10", token=token
        )
        assert status == 200, body
        after = json.loads(body)["last_seq"]
    raise AssertionError("the deal did not end")


def test_a_guest_plays_a_deal_with_bots_through_the_proxy(deployment):
    port = deployment["port"]
    status, _, body = _call(port, "POST", "/api/v1/auth/guest", body={})
    assert status == 201, body
    token = json.loads(body)["token"]
    status, _, body = _call(
        port, "POST", "/api/v1/matchmaking/tickets", token=token, body={"preset": "weihai", "bots": True}
    )
    assert status == 201, body
    ticket = json.loads(body)
    # The ticket's long-poll returns once the worker has seated the bots.
    end = time.monotonic() + 60
    while ticket["status"] == "waiting" and time.monotonic() < end:
        status, _, body = _call(
            port, "GET", f"/api/v1/matchmaking/tickets/{ticket['id']}?wait=10", token=token
        )
        assert status == 200, body
        ticket = json.loads(body)
    assert ticket["status"] == "matched", ticket
    # The feed as a stream through the proxy: its first entries arrive unbuffered.
    status, headers, body = _call(port, "GET", "/api/v1/me/events?after=0", token=token)
    started = [e for e in json.loads(body)["events"] if e["type"] == "deal_started"]
    assert status == 200 and started, body
    game_id = started[0]["game"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request(
        "GET",
        "/api/v1/me/events",
        headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"},
    )
    stream = conn.getresponse()
    assert stream.status == 200 and stream.getheader("Content-Type").startswith("text/event-stream")
    text, end = b"", time.monotonic() + 15
    while b"event: deal_started" not in text and time.monotonic() < end:
        text += stream.read1(65536)
    assert b"event: deal_started" in text, text
    conn.close()

    final = _play(port, token, game_id, random.Random(7))
    assert final["phase"] in ("over", "void") and len(final["hands"]) == 5

    # Who served what: the followed logs by the event server, the rest by web.
    followed = re.compile(r"^/api/v1/(games/\d+/events|tables/\d+/events|me/events|matchmaking/tickets/\d+)$")
    web_paths = _access_paths(deployment["logs"]["web"])
    events_paths = _access_paths(deployment["logs"]["events"])
    assert any(path.endswith("/actions") for path in web_paths)
    assert events_paths and all(followed.match(path) or path == "/readyz" for path in events_paths)
    assert not [path for path in web_paths if followed.match(path)]
    # DELETE of a ticket is web's (the event server answers GET only).
    status, _, _ = _call(port, "DELETE", f"/api/v1/matchmaking/tickets/{ticket['id']}", token=token)
    assert status in (204, 409)


def test_a_client_written_forwarded_for_buys_no_more_tries(deployment):
    """Behind the proxy (NUM_PROXIES=1, nginx replaces X-Forwarded-For with the address it saw),
    the guest throttle counts the same client however it rotates the header."""
    port = deployment["port"]
    refused = None
    for attempt in range(400):
        status, _, body = _call(
            port,
            "POST",
            "/api/v1/auth/guest",
            body={},
            headers={"X-Forwarded-For": f"203.0.113.{attempt % 250}"},
        )
        if status == 429:
            refused = attempt
            break
        assert status == 201, body
    assert refused is not None, "the guest throttle never answered 429"
    for last in range(1, 6):
        status, _, body = _call(
            port, "POST", "/api/v1/auth/guest", body={}, headers={"X-Forwarded-For": f"198.51.100.{last}"}
        )
        assert status == 429 and json.loads(body)["code"] == "throttled", body
