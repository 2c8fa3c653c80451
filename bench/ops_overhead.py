"""What observability costs per request, and how fast /readyz gives up on a database that hangs.

    .venv/bin/python bench/ops_overhead.py [--requests 500] [--rounds 31]

1. Per-request cost of the three operator middlewares (request id + JSON access line, request metrics,
   operator paths): a GET through Django's WSGI handler, in process, without them (the baseline,
   Django's own middleware only), with them, and with them but no access line, in alternating rounds.
   The URL is an API path that resolves to nothing (a 404 in the error shape), so that no variant
   touches a database and all run every middleware; every log line goes through the production JSON
   formatter to a null stream.
   Figures: CPU µs per request, the minimum and median of the rounds, and the median of the
   differences within each round. Goal: under 150 µs added with the JSON access line (LOG_LEVEL=INFO,
   production), under 50 µs without it (LOG_LEVEL=WARNING).
2. /readyz against a database address that accepts connections but never answers (a listening socket
   nobody accepts on), next to /readyz with a healthy check set, for READYZ_TIMEOUT = 0.5 and 1.5 s.
   Goal: the failing probe answers within READYZ_TIMEOUT + 0.5 s (the wait bound), not libpq's timeout.

Loopback only. Part 1 touches no database; part 2 needs PostgreSQL for its healthy figure
(DATABASE_URL, default: the `postgres` database on 127.0.0.1) and switches the other checks off.
"""

import argparse
import io
import logging
import os
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, RequestFactory, override_settings  # noqa: E402

from infra import logs  # noqa: E402

OPS_MIDDLEWARE = (
    "infra.request_context.request_context_middleware",
    "infra.metrics_middleware.request_metrics_middleware",
    "infra.operator_paths.operator_paths_middleware",
)


class NullStream(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def log_to_nowhere() -> None:
    """INFO and up, as in production, formatted as JSON lines and thrown away."""
    handler = logging.StreamHandler(NullStream())
    handler.setFormatter(logs.JsonLineFormatter())
    handler.addFilter(logs.ContextFilter())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.INFO)


def per_request_us(requests: int) -> float:
    handler = WSGIHandler()
    environ = RequestFactory(HTTP_HOST="localhost").get("/api/v1/no-such-route").environ

    def start_response(status, headers, exc_info=None):
        return None

    # CPU time of this process: robust to other work on a shared machine, and all of it is ours here.
    started = time.process_time()
    for _ in range(requests):
        response = handler(dict(environ), start_response)
        response.close()
    return (time.process_time() - started) / requests * 1e6


def middleware_overhead(requests: int, rounds: int) -> None:
    bare = [m for m in settings.MIDDLEWARE if m not in OPS_MIDDLEWARE]
    access = logging.getLogger("baohuang.request")
    figures: dict[str, list[float]] = {"baseline": [], "ops, access line": [], "ops, no access line": []}
    per_request_us(200)  # warm-up
    for _ in range(rounds):
        # Short alternating rounds: a busy neighbour slows every variant of a round alike.
        with override_settings(MIDDLEWARE=bare):
            figures["baseline"].append(per_request_us(requests))
        figures["ops, access line"].append(per_request_us(requests))
        access.setLevel(logging.WARNING)  # LOG_LEVEL=WARNING: no access line
        figures["ops, no access line"].append(per_request_us(requests))
        access.setLevel(logging.NOTSET)
    print(f"GET /api/v1/no-such-route (404), in process, {rounds} alternating rounds of {requests} requests")
    for name, values in figures.items():
        added = [a - b for a, b in zip(values, figures["baseline"])]
        extra = "" if name == "baseline" else f"   added: median of rounds {statistics.median(added):6.1f} us"
        print(f"  {name:20s} min {min(values):7.1f}  median {statistics.median(values):7.1f} CPU us{extra}")
    print("  goal: added < 150 us with the JSON access line, < 50 us without it")


def readyz_seconds(client: Client) -> tuple[int, float]:
    started = time.perf_counter()
    response = client.get("/readyz")
    return response.status_code, time.perf_counter() - started


def readyz_bounds() -> None:
    client = Client(HTTP_HOST="localhost")
    print("GET /readyz (database check only)")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        for timeout in (0.5, 1.5):
            with override_settings(READYZ_CHECKS=["database"], READYZ_TIMEOUT=timeout):
                healthy_status, healthy = readyz_seconds(client)
                original = dict(connection.settings_dict)
                connection.settings_dict.update(HOST="127.0.0.1", PORT=silent.getsockname()[1])
                try:
                    hung_status, hung = readyz_seconds(client)
                finally:
                    connection.settings_dict.clear()
                    connection.settings_dict.update(original)
            print(
                f"  READYZ_TIMEOUT={timeout}: healthy {healthy_status} in {healthy:5.2f} s;"
                f" silent database {hung_status} in {hung:5.2f} s (bound {timeout + 0.5:.1f} s)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    log_to_nowhere()
    middleware_overhead(args.requests, args.rounds)
    readyz_bounds()


if __name__ == "__main__":
    main()
