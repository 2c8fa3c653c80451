"""The baseline task of bench/timer_lateness.py: a bare countdown task that notes when it started.

Loaded into the bench's worker with `-I bench.celery_probe`; never part of the service.
"""

import json
import os
import time

from celery import shared_task

PROBE_KEY = "bench:probe"


@shared_task(name="bench.probe", ignore_result=True)
def probe(eta: float) -> None:
    import redis

    started = time.time()
    redis.Redis.from_url(os.environ["REDIS_URL"]).rpush(PROBE_KEY, json.dumps([eta, started]))
