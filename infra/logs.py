"""Logging: JSON lines in production (`LOG_FORMAT=json`), plain text in development.

Every record gets the ids of the request or task it was written in (infra/request_context.py). What
a record must never hold is kept out at the source: no module logs request bodies, headers or game
state, and `django.db.backends` (whose DEBUG lines carry SQL parameters: hands, seeds, token hashes)
is held at INFO whatever LOG_LEVEL says.
"""

import logging
from typing import Any

from pythonjsonlogger.orjson import OrjsonFormatter

from infra import request_context

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s%(task_id)s] %(message)s"
JSON_FORMAT = "%(levelname)s %(name)s %(message)s"


class ContextFilter(logging.Filter):
    """Adds request_id, task_id, task_name, game_id, table_id and user_id to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in request_context.current_fields().items():
            if not hasattr(record, name) or getattr(record, name) is None:
                setattr(record, name, value)
        return True


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        # Either id (or neither, outside requests and tasks) fills the brackets.
        if getattr(record, "request_id", None) is None and getattr(record, "task_id", None) is None:
            record.request_id, record.task_id = "-", ""
        elif getattr(record, "request_id", None) is None:
            record.request_id = ""
        elif getattr(record, "task_id", None) is None:
            record.task_id = ""
        return super().format(record)


class JsonLineFormatter(OrjsonFormatter):
    """One JSON object per line; ids that are unknown are left out rather than written as null.
    Encoded by orjson: every request writes an access line, and the json module's encoding of it
    was a measurable share of a poll's CPU (docs/scaling.md)."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        # An ISO 8601 time in UTC, which log pipelines parse without being told the format.
        kwargs.setdefault("timestamp", "time")
        super().__init__(JSON_FORMAT, *args, **kwargs)

    def process_log_record(self, log_data: dict) -> dict:
        return {key: value for key, value in log_data.items() if value is not None}


def logging_config(*, level: str | int = "WARNING", fmt: str = "text") -> dict:
    """The LOGGING setting; also applied by Celery processes (infra/celery_signals.py)."""
    if isinstance(level, str):
        level = level.upper()
    formatter = "json" if fmt == "json" else "text"
    loggers: dict[str, dict] = {
        # SQL parameters hold hidden cards and seeds; never log them, even at DEBUG.
        "django.db.backends": {"level": "INFO"},
    }
    if fmt == "json":
        # In production every line is JSON (docs/deploy.md "Logs"), the server's own too: uvicorn's
        # lines go through our handler, and its access lines are dropped, since our request
        # middleware and the event server already write one per request, with its request id.
        loggers["uvicorn"] = {"handlers": ["console"], "level": "INFO", "propagate": False}
        loggers["uvicorn.access"] = {"handlers": [], "level": "WARNING", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "infra.logs.ContextFilter"}},
        "formatters": {
            "text": {"()": "infra.logs.TextFormatter", "format": TEXT_FORMAT},
            "json": {"()": "infra.logs.JsonLineFormatter"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": formatter, "filters": ["context"]},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": loggers,
    }


def gunicorn_logging_config(*, level: str | int = "INFO", fmt: str = "text") -> dict:
    """gunicorn's `logconfig_dict` (config/gunicorn_common.py): in JSON mode the arbiter's own lines
    ("Starting gunicorn", "Booting worker", signals, worker exits), which it writes before any
    application is loaded, through the same JSON handler; in text mode gunicorn's own format ({}).
    Under the event server's workers uvicorn logs through gunicorn's error logger too."""
    if fmt != "json":
        return {}
    config = logging_config(level=level, fmt=fmt)
    config["loggers"]["gunicorn.error"] = {"handlers": ["console"], "level": "INFO", "propagate": False}
    # The access log is off in both roles (config/gunicorn.py `accesslog`): our own line replaces it.
    config["loggers"]["gunicorn.access"] = {"handlers": [], "level": "WARNING", "propagate": False}
    return config
