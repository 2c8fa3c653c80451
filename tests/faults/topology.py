"""The production topology in processes of its own, for the fault suite: a PostgreSQL made with
initdb in a temporary folder and a Redis server (both of which the suite stops and starts), two web
replicas, two event servers, nginx with the shipped deploy/nginx.conf in front of them, two Celery
workers and one beat, all on the production settings."""

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.games.worker import kill_group
from tests.ops.server import free_port

BASE_DIR = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None)
    if found is None:
        raise RuntimeError(f"{name} not found (PostgreSQL's server binaries)")
    return found


def _as_postgres(command: list[str]) -> list[str]:
    # initdb and the server refuse to run as root.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Process:
    """One long-running process in a session of its own, logging to a file."""

    def __init__(self, name: str, command: list[str], *, env: dict, workdir: Path):
        self.name, self.command, self.env, self.workdir = name, command, env, workdir
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.workdir / f"{self.name}.log"

    def start(self) -> None:
        self.starts += 1
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=BASE_DIR,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self, sig: int = signal.SIGKILL) -> None:
        kill_group(self.process, sig, timeout=30)

    def children(self) -> list[int]:
        """The pids of this process's children (gunicorn's workers, Celery's)."""
        if self.process is None:
            return []
        found = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        return [int(pid) for pid in found]

    def tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return "(no log)"


class Postgres:
    def __init__(self, workdir: Path):
        self.dir = workdir / "pg"
        self.port = free_port()
        self.dir.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            shutil.chown(workdir, "postgres", "postgres")
        subprocess.run(
            _as_postgres([_pg_bin("initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres"]),
            check=True,
            capture_output=True,
        )
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_postgres(
                [
                    _pg_bin("pg_ctl"),
                    "-D",
                    str(self.dir / "data"),
                    "-o",
                    options,
                    "-l",
                    str(self.dir / "server.log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([_pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop"]),
            check=False,
            capture_output=True,
        )


class Topology:
    """Everything, started in order; `stop_all` kills what is left."""

    def __init__(self, workdir: Path, *, env_extra: dict | None = None):
        self.workdir = workdir
        self.postgres = Postgres(workdir)
        self.redis_port = free_port()
        self.redis = Process(
            "redis",
            [
                "redis-server",
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            env=dict(os.environ),
            workdir=workdir,
        )
        self.restarts: list[str] = []
        self.port = free_port()
        self.web_ports = [free_port(), free_port()]
        self.events_ports = [free_port(), free_port()]
        redis = f"redis://127.0.0.1:{self.redis_port}"
        self.env = {
            **{key: value for key, value in os.environ.items() if key != "PROMETHEUS_MULTIPROC_DIR"},
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "fault-suite-only",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": f"{redis}/1",
            "CELERY_BROKER_URL": f"{redis}/0",
            "NUM_PROXIES": "1",
            "LOG_FORMAT": "json",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            "WEB_CONCURRENCY": "1",
            "WEB_THREADS": "4",
            "EVENTS_CONCURRENCY": "1",
            "DB_POOL_MAX_SIZE": "4",
            "GUEST_THROTTLE_RATE": "1000/hour",
            "MATCHMAKING_BOTS_AFTER": "0.5",
            "MATCHMAKING_INTERVAL": "0.5",
            "BOTS_DELAY_SECONDS": "0.2",
            "GAMES_SWEEP_SECONDS": "1",
            "GAMES_SWEEP_GRACE": "1",
            "EVENTS_POLL_INTERVAL": "0.5",
            **(env_extra or {}),
        }
        gunicorn, celery = str(BIN / "gunicorn"), str(BIN / "celery")
        def server(name: str, config: str, port: int) -> Process:
            command = [gunicorn, "-c", f"python:{config}", "-b", f"127.0.0.1:{port}"]
            return Process(name, command, env=self.env, workdir=workdir)

        self.web = [server(f"web{i}", "config.gunicorn", port) for i, port in enumerate(self.web_ports)]
        self.events = [
            server(f"events{i}", "config.gunicorn_events", port) for i, port in enumerate(self.events_ports)
        ]
        self.workers = [
            Process(
                f"worker{i}",
                [
                    celery,
                    "-A",
                    "config",
                    "worker",
                    "--pool=threads",
                    "--concurrency=2",
                    "--without-gossip",
                    "--without-mingle",
                    "--loglevel=WARNING",
                    "-n",
                    f"faults{i}-{os.getpid()}@%h",
                ],
                env=self.env,
                workdir=workdir,
            )
            for i in range(2)
        ]
        self.beat = Process(
            "beat",
            [celery, "-A", "config", "beat", "--loglevel=WARNING", "-s", str(workdir / "beat-schedule")],
            env=self.env,
            workdir=workdir,
        )
        self.nginx = Process(
            "nginx",
            [NGINX, "-c", str(workdir / "nginx.conf"), "-p", str(workdir)],
            env=self.env,
            workdir=workdir,
        )

    def _nginx_config(self) -> None:
        site = (BASE_DIR / "deploy" / "nginx.conf").read_text()
        web = "".join(f"server 127.0.0.1:{port};\n    " for port in self.web_ports).rstrip()
        events = "".join(f"server 127.0.0.1:{port};\n    " for port in self.events_ports).rstrip()
        site = site.replace("server web:8000;", web).replace("server events:8001;", events)
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        (self.workdir / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {self.workdir}/nginx.pid;\n"
            f"error_log {self.workdir}/nginx-error.log;\nevents {{ worker_connections 512; }}\n"
            f"http {{\n access_log off;\n client_body_temp_path {self.workdir}/body;\n"
            f" proxy_temp_path {self.workdir}/proxy;\n fastcgi_temp_path {self.workdir}/fastcgi;\n"
            f" uwsgi_temp_path {self.workdir}/uwsgi;\n scgi_temp_path {self.workdir}/scgi;\n{site}\n}}\n"
        )

    def supervise(self, stop) -> None:
        """Restart any server, worker or beat that exited, as an orchestrator's restart policy does
        (deploy/compose.yaml: `restart: unless-stopped`), until `stop` is set."""
        while not stop.wait(0.5):
            for process in [*self.web, *self.events, *self.workers, self.beat]:
                if process.process is not None and process.process.poll() is not None:
                    self.restarts.append(process.name)
                    process.start()

    def start(self) -> None:
        self.postgres.start()
        self.redis.start()
        migrated = subprocess.run(
            [str(BIN / "python"), "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=BASE_DIR,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        if migrated.returncode:
            raise RuntimeError(f"migrate failed:\n{migrated.stdout[-2000:]}\n{migrated.stderr[-3000:]}")
        self._nginx_config()
        for process in [*self.web, *self.events, *self.workers, self.beat, self.nginx]:
            process.start()

    def stop_all(self) -> None:
        for process in [self.nginx, self.beat, *self.workers, *self.events, *self.web, self.redis]:
            process.kill()
        self.postgres.stop()

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.tail(15)}" for p in [*self.web, *self.events, *self.workers, self.beat]
        )


def wait_until(condition, *, timeout: float, interval: float = 0.2, what: str = "") -> float:
    """Seconds it took `condition()` to hold; fails after `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        with contextlib.suppress(Exception):
            if condition():
                return time.monotonic() - started
        time.sleep(interval)
    raise AssertionError(f"not within {timeout}s: {what}")
