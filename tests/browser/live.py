"""The whole service as a newcomer runs it (`scripts/start`: SQLite, a Celery worker with beat on the
filesystem broker, uvicorn serving config.asgi), started from this virtualenv in a temporary folder,
for the web client's browser tests and bench/web_client.py. Bots act fast and quick matches fill
with bots after a second, so a deal plays in well under a minute."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveService:
    def __init__(self, workdir: Path, *, env: dict | None = None, base_dir: Path = BASE_DIR):
        """`base_dir`: the checkout to run (bench/web_client.py runs an older client's beside this one)."""
        self.workdir = workdir
        self.base_dir = base_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
        }
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings.local",
                "DJANGO_DEBUG": "0",
                "VAR_DIR": str(workdir / "var"),
                "PYTHONPATH": str(base_dir),
                "MATCHMAKING_BOTS_AFTER": "1",
                "BOTS_DELAY_SECONDS": "0.05",
                "LOG_LEVEL": "WARNING",
                **(env or {}),
            }
        )
        self.processes: list[subprocess.Popen] = []
        self.log_path = workdir / "service.log"

    def _spawn(self, *args: str) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - lives as long as the process
        self.processes.append(
            subprocess.Popen(
                [sys.executable, *args],
                cwd=self.base_dir,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )

    def manage(self, *args: str, env: dict | None = None) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.base_dir,
            env={**self.env, **(env or {})},
            check=True,
            capture_output=True,
        )

    def start(self) -> "LiveService":
        self.manage("migrate", "--noinput")
        self._spawn(
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-B",
            "--pool=solo",
            "--loglevel=WARNING",
            "-s",
            str(self.workdir / "celerybeat-schedule"),
            "--without-gossip",
            "--without-mingle",
        )
        self._spawn(
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--no-proxy-headers",
            "--log-level",
            "warning",
        )
        end = time.monotonic() + 90
        while time.monotonic() < end:
            for process in self.processes:
                assert process.poll() is None, self.log_tail()
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        raise AssertionError("the service did not answer /healthz within 90 s\n" + self.log_tail())

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
