"""A real `celery -A config worker` (with embedded beat) in a subprocess, on real Redis and the
PostgreSQL test database: used by the timer tests marked `celery_worker` and by bench/."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
CELERY = Path(sys.executable).with_name("celery")


def database_url(settings_dict: dict) -> str:
    """DATABASE_URL naming the database Django is connected to (pytest-django's `test_<name>`)."""
    user = settings_dict.get("USER") or "postgres"
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings_dict['NAME']}"


def use_broker(url: str, transport_options: dict | None = None) -> tuple[str, dict]:
    """Point this process's Celery app (which publishes the timers) at `url`; returns the previous
    broker and options, to be given back to it afterwards."""
    from config.celery import app

    previous = (app.conf.broker_url, dict(app.conf.broker_transport_options or {}))
    app.conf.broker_url = url
    app.conf.broker_transport_options = (
        transport_options if transport_options is not None else {"visibility_timeout": 3600}
    )
    # Connections and producers already made for the old broker are dropped (Celery keeps no public
    # way to switch brokers at run time).
    app._pool = None
    app.amqp._producer_pool = None
    return previous


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def kill_group(process: subprocess.Popen | None, sig: int = signal.SIGKILL, timeout: float = 20) -> None:
    """Send `sig` to the process's whole session (started with start_new_session) and wait for it;
    SIGKILL if it has not ended within `timeout`."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)


class Worker:
    """Start, kill (SIGKILL, the whole process group) and restart one worker process with beat."""

    def __init__(
        self,
        *,
        broker: str,
        database: str,
        workdir: Path,
        concurrency: int = 2,
        env: dict | None = None,
        pool: str = "threads",
        include: str | None = None,
    ):
        self.broker = broker
        self.database = database
        self.workdir = workdir
        self.concurrency = concurrency
        self.extra_env = env or {}
        self.pool = pool
        self.include = include
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def log_path(self) -> Path:
        return self.workdir / f"worker-{self.starts}.log"

    def start(self, timeout: float = 60) -> None:
        self.starts += 1
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": self.database,
            "CELERY_BROKER_URL": self.broker,
            "GAMES_SWEEP_SECONDS": "0.5",
            "GAMES_SWEEP_GRACE": "1",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        command = [
            str(CELERY),
            "-A",
            "config",
            "worker",
            "-B",
            "-s",
            str(self.workdir / "beat-schedule"),
            f"--pool={self.pool}",
            f"--concurrency={self.concurrency}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=INFO",
            "-n",
            f"timers-test-{os.getpid()}-{self.starts}@%h",
        ]
        if self.include:
            command += ["-I", self.include]
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited with {self.process.returncode}:\n{self.log_tail()}")
            if b" ready." in self.log_path.read_bytes():
                return
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"worker not ready after {timeout}s:\n{self.log_tail()}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        kill_group(self.process, sig)

    def stop(self) -> None:
        self.kill(signal.SIGTERM)

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


@contextlib.contextmanager
def worker_running(*, broker: str, workdir: Path, env: dict | None = None):
    """A started Worker on `broker` against the test database, with this process's Celery app
    publishing there too; afterwards the worker is killed, the app's broker given back and the
    broker's Redis database emptied."""
    from django.db import connection

    flush_redis(broker)
    previous = use_broker(broker)
    process = Worker(broker=broker, database=database_url(connection.settings_dict), workdir=workdir, env=env)
    try:
        process.start()
        yield process
    finally:
        process.kill()
        use_broker(*previous)
        flush_redis(broker)
