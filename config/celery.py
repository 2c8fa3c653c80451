"""The Celery app for the worker and beat processes (docs/architecture.md "Processes").

With no `CELERY_BROKER_URL` the broker is kombu's filesystem transport under `var/celery/`, so a
newcomer's single machine needs no Redis; eager mode is never used because it would ignore the
countdowns that turn deadlines depend on.
"""

import os

from celery import Celery
from django.db import InterfaceError, OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("baohuang")

# The options of every task that is safe to run again (each re-locks its rows and checks what it was
# sent for): acknowledged after it ran, so a task lost with its worker runs again; and retried, with
# a growing pause, when the database could not be reached or rolled its transaction back (nothing
# of it was committed), rather than dropped.
TASK_SAFE_TO_REPEAT = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "ignore_result": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 12,
}
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Logging, task ids in log lines, task failure counts, the worker's metrics endpoint.
import infra.celery_signals  # noqa: E402,F401
