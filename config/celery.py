"""The Celery app for the worker and beat processes (docs/architecture.md "Processes").

With no `CELERY_BROKER_URL` the broker is kombu's filesystem transport under `var/celery/`, so a
newcomer's single machine needs no Redis; eager mode is never used because it would ignore the
countdowns that turn deadlines depend on.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("baohuang")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Logging, task ids in log lines, task failure counts, the worker's metrics endpoint.
import config.celery_signals  # noqa: E402,F401
