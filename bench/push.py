#!/usr/bin/env python
"""Push notifications: what the worker sends per second, and what push adds to a move's web CPU.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity .venv/bin/python bench/push.py

In one process, on PostgreSQL and Redis (the Celery broker the move's after-commit task goes to):

1. Web CPU per move (`POST games/{id}/actions` through Django's test client and the whole stack;
   this thread's CPU time), push on against push off (PUSH_ENABLED false: the baseline, in the same
   run), interleaved move by move so that drift of the machine falls on both alike; first with no
   device, then with --devices Web Push devices per player. The move only adds its entries to the
   Redis round trip of its wake-ups (accounts/feed.py), so the devices cost it nothing.
2. Pushes per second the worker's task body (accounts/push/delivery.py `entries_push`) sends to the
   Web Push service on loopback (tests/push/webpush_service.py: HTTPS, VAPID checked, every message
   decrypted, on this machine too), beside the same service taking plain POSTs of the same size
   from one client (its ceiling here, in the same run).
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

# bench/support.py (found beside this script)
from support import in_process_environment, one_deal_table, random_move

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=300, help="measured moves per mode")
    parser.add_argument("--devices", type=int, default=5, help="Web Push devices per player")
    parser.add_argument("--pushes", type=int, default=500)
    parser.add_argument("--redis-db", type=int, default=12)
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bh_capacity")
    if not database_url.startswith("postgres"):
        sys.exit("bench/push.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    from tests.push.webpush_service import WebPushService, vapid_keys

    private, public = vapid_keys()
    service = WebPushService().__enter__()
    service.vapid_public_key = public
    os.environ.update(
        {
            **in_process_environment(database_url=database_url, redis_url=redis_url),
            "WEBHOOK_ALLOW_PRIVATE": "1",  # the push service is on loopback
            "WEBPUSH_VAPID_PRIVATE_KEY": private,
            "WEBPUSH_VAPID_PUBLIC_KEY": public,
            "REQUESTS_CA_BUNDLE": service.ca_file,
        }
    )
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)

    import redis
    import requests
    from django.test import Client

    from accounts.models import FeedEvent, User
    from accounts.push import delivery, devices
    from accounts.services import token_create
    from games import engine

    stamp = f"{int(time.time())}{random.randrange(1000)}"
    users = [User.objects.create_user(username=f"push-{stamp}-{s}") for s in range(5)]
    staff_user = User.objects.create_user(username=f"push-staff-{stamp}", password="x" * 12, is_staff=True)
    staff = Client(headers={"authorization": f"Bearer {token_create(user=staff_user)}"})
    players = [Client(headers={"authorization": f"Bearer {token_create(user=u)}"}) for u in users]
    rng = random.Random(stamp)

    def register(user, count: int) -> None:
        for _ in range(count):
            browser = service.browser()
            keys = browser.subscription()["keys"]
            devices.device_register(
                user=user, auth_token_id=None, platform="webpush", token=browser.endpoint, keys=keys
            )

    def new_table():
        return (*one_deal_table(staff, players, rng, "weihai"), 0)

    # --- 1. web CPU per move ---------------------------------------------------------------------
    # Two phases, each interleaving push off (its baseline) and push on move by move: without devices,
    # then with --devices per player.
    phases = [("0 devices", 0), (f"{args.devices} devices", args.devices)]
    cpu: dict[tuple[int, bool], list[float]] = {(phase, on): [] for phase in (0, 1) for on in (False, True)}
    game, state, version = new_table()
    warmup, done = 20, 0
    with_devices = False
    while min(len(samples) for samples in cpu.values()) < args.moves:
        if state.phase in ("over", "void"):
            game, state, version = new_table()
        # Per phase: devices or not (rows the web never reads on a move); per move: push on or off.
        mode = (int(with_devices), done % 2 == 1)
        settings.PUSH_ENABLED = mode[1]
        seat, action, payload = random_move(state, rng)
        payload["expected_version"] = version
        started = time.thread_time()
        response = players[seat].post(
            f"/api/v1/games/{game}/actions", payload, content_type="application/json"
        )
        spent = (time.thread_time() - started) * 1e3
        if response.status_code != 200:
            raise RuntimeError(f"move: {response.status_code} {response.content[:300]}")
        if done >= warmup:
            cpu[mode].append(spent)
        state, _ = engine.apply_action(state, seat, action)
        version += 1
        done += 1
        if done >= warmup and not with_devices and min(len(cpu[0, on]) for on in (False, True)) >= args.moves:
            for user in users:
                register(user, args.devices)
            with_devices = True
    settings.PUSH_ENABLED = True

    # --- 2. pushes per second ----------------------------------------------------------------------
    target = users[0]
    entries = []
    per_entry = max(1, args.devices)
    from accounts.feed import feed_append

    for index in range(max(1, args.pushes // per_entry)):
        entries.append(
            (target.pk, feed_append(user_id=target.pk, type="deal_over", data={"game": index + 1}))
        )
    sent_before = len(service.received)
    started = time.perf_counter()
    sent = delivery.entries_push(entries=entries)
    push_seconds = time.perf_counter() - started
    refused = [r for r in service.received[sent_before:] if r.status != 201]
    if refused or sent != len(service.received) - sent_before:
        raise RuntimeError(f"{len(refused)} pushes refused: {refused[:1]}")

    endpoint = service.browser().endpoint
    body = os.urandom(230)  # about a push's encrypted size
    session = requests.Session()
    started = time.perf_counter()
    plain = max(50, sent)
    service.vapid_public_key = None
    for _ in range(plain):
        session.post(endpoint, data=body, headers={"TTL": "0"}, timeout=5)
    plain_seconds = time.perf_counter() - started
    service.__exit__(None, None, None)
    FeedEvent.objects.filter(user__in=users).delete()
    redis.Redis.from_url(redis_url).flushdb()

    print(f"web CPU per move (ms, this thread), {args.moves} moves each, push off and on interleaved:")
    for phase, (name, _) in enumerate(phases):
        off, on = statistics.median(cpu[phase, False]), statistics.median(cpu[phase, True])
        print(
            f"  {name:>10}: push off p50 {off:6.2f} (baseline)   push on p50 {on:6.2f}"
            f"   {(on / off - 1) * 100:+.1f}%"
        )
    rate = sent / push_seconds
    print(f"pushes sent by the worker's task: {sent} in {push_seconds:.2f} s = {rate:.0f} pushes/s")
    ceiling = plain / plain_seconds
    print(f"  beside plain POSTs to the same service: {ceiling:.0f} requests/s (no encryption, no VAPID)")
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average {load} (a shared machine: the service decrypts on the same cores)")


if __name__ == "__main__":
    main()
