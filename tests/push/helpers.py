"""Running the push tasks the commits sent, as the worker would: taken from the test broker's queue
(the in-memory transport, config/settings/test.py) and run in this process; with Redis configured,
then the beat's drain of what the feed queued there (accounts/feed.py)."""

from django.conf import settings

import accounts.tasks  # noqa: F401 - registers the push tasks, as the worker's autodiscovery does
from config.celery import app


def run_queued_tasks(prefix: str = "push.") -> list[str]:
    """Run every queued task whose name starts with `prefix` (others are dropped); their names."""
    ran = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(app.conf.task_default_queue)
        try:
            while True:
                try:
                    message = queue.get(block=False)
                except queue.Empty:
                    break
                message.ack()
                name = message.headers["task"]
                if name.startswith(prefix):
                    _args, kwargs, _embed = message.decode()
                    app.tasks[name](**kwargs)
                    ran.append(name)
        finally:
            queue.close()
    if settings.REDIS_URL and prefix == "push.":
        app.tasks["push.entries_drain"]()
        ran.append("push.entries_drain")
    return ran
