#!/usr/bin/env python
"""What a bearer token's lookup costs a request, and how soon a revocation reaches another process.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bh_capacity .venv/bin/python bench/token_lookup.py

In one process (Django set up as the in-process benches run it, bench/support.py; Redis database
`--redis-db`), for one token:

* CPU per lookup (`accounts.authentication.bearer_credential`, this thread's CPU time), answered
  - by the database, the token caches off: the baseline in the same run;
  - by the shared cache (accounts/token_cache.py: a Redis round trip and an unpickling), the memo off;
  - by this process's memo (accounts/token_memo.py);
  - by redis-py's server-assisted client-side cache (RESP3, `CLIENT TRACKING`, `CacheConfig`) holding
    the same cache entry, a GET and the same unpickling, when the Redis server accepts it (redis-py
    needs Redis 7.4 or later; otherwise the line says what the server answered);
* invalidation: from the PUBLISH of a forget by another connection (as another process revoking the
  token) until this process's memo no longer answers it, median and p99 of `--forgets`; for the
  client-side cache, from the DEL of the entry by another connection until a GET no longer answers
  from the cache.

Loopback only; bounded by --lookups and --forgets.
"""

import argparse
import math
import pickle
import statistics
import sys
import time
from pathlib import Path

# bench/support.py (found beside this script)
from support import django_in_process, in_process_urls, percentile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu_per_call_us(call, count: int) -> float:
    for _ in range(min(count, 50)):  # warm: the first lookups write the token's last use
        call()
    started = time.thread_time()
    for _ in range(count):
        call()
    return (time.thread_time() - started) / count * 1e6


def until(condition, timeout: float = 5.0, *, since: float | None = None) -> float:
    """Seconds from `since` (default: now) until `condition()` holds (checked in a loop that yields
    the GIL), or NaN."""
    started = time.perf_counter() if since is None else since
    while not condition():
        if time.perf_counter() - started > timeout:
            return float("nan")
        time.sleep(0.00005)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--forgets", type=int, default=200)
    parser.add_argument("--redis-db", type=int, default=13)
    args = parser.parse_args()
    database_url, redis_url = in_process_urls(script="token_lookup.py", redis_db=args.redis_db)
    django_in_process(
        database_url=database_url,
        redis_url=redis_url,
        env={"AUTH_TOKEN_CACHE_SECONDS": "300", "AUTH_TOKEN_MEMO_SECONDS": "30"},
    )

    import redis
    from django.core.cache import cache
    from django.test import override_settings

    from accounts import token_memo
    from accounts.authentication import bearer_credential
    from accounts.models import AuthToken, User
    from accounts.services import token_create

    cache.clear()
    user = User.objects.create_user(username=f"token-bench-{int(time.time() * 1000)}", password="x" * 12)
    key = token_create(user=user)
    key_hash = AuthToken.hash_key(key)
    lookup = lambda: bearer_credential(key)  # noqa: E731

    figures: dict[str, float] = {}
    with override_settings(AUTH_TOKEN_CACHE_SECONDS=0):
        figures["database (caches off)"] = cpu_per_call_us(lookup, args.lookups)
    with override_settings(AUTH_TOKEN_MEMO_SECONDS=0):
        figures["shared cache (memo off)"] = cpu_per_call_us(lookup, args.lookups)
    token_memo.answering()
    if math.isnan(until(token_memo.answering)):
        sys.exit("the token memo's listener never confirmed its subscription")
    lookup()
    lookup()  # the second is answered by the shared cache and kept in the memo
    assert token_memo.recall(key_hash) is not None
    figures["this process's memo"] = cpu_per_call_us(lookup, args.lookups)

    other = redis.Redis.from_url(redis_url)
    cache_key = cache.make_key("authtoken:" + key_hash)
    tracking, refused = None, ""
    try:
        from redis.cache import CacheConfig

        tracking = redis.Redis.from_url(redis_url, protocol=3, cache_config=CacheConfig())
        tracking.ping()
        server = tracking.info("server")["redis_version"]
    except Exception as exc:  # noqa: BLE001 - reported: what the server answered
        refused = f"{type(exc).__name__}: {exc} (server {other.info('server')['redis_version']})"
        tracking = None
    if tracking is not None:
        tracking.get(cache_key)
        figures[f"client-side cache (Redis {server})"] = cpu_per_call_us(
            lambda: pickle.loads(tracking.get(cache_key)),  # noqa: S301 - our own cache entry
            args.lookups,
        )

    print(f"CPU per token lookup, {args.lookups} lookups each (thread CPU time, µs; lower is cheaper)")
    baseline = figures["database (caches off)"]
    for name, micros in figures.items():
        print(f"  {name:<40}{micros:9.1f} µs   {micros / baseline:6.2f} × the database's")
    if refused:
        print(f"  {'client-side cache':<40}   refused: {refused}")

    channel = token_memo.forget_channel()
    memo_latencies = []
    for _ in range(args.forgets):
        token_memo.keep(key_hash, bearer_credential(key).token, since=token_memo.generation())
        assert token_memo.recall(key_hash) is not None
        sent = time.perf_counter()
        other.publish(channel, key_hash)
        memo_latencies.append(until(lambda: key_hash not in token_memo._memo, since=sent))
    print(f"invalidation, {args.forgets} forgets published by another connection (ms)")
    print(
        f"  {'memo (its listener thread)':<40}median {statistics.median(memo_latencies) * 1e3:7.3f}"
        f"   p99 {percentile(memo_latencies, 0.99) * 1e3:7.3f}"
    )
    if tracking is not None:
        value = other.get(cache_key)
        csc_latencies = []
        for _ in range(args.forgets):
            other.set(cache_key, value)
            tracking.get(cache_key)
            tracking.get(cache_key)  # from the client-side cache now
            sent = time.perf_counter()
            other.delete(cache_key)
            csc_latencies.append(until(lambda: tracking.get(cache_key) is None, since=sent))
        print(
            f"  {'client-side cache':<40}median {statistics.median(csc_latencies) * 1e3:7.3f}"
            f"   p99 {percentile(csc_latencies, 0.99) * 1e3:7.3f}"
        )
        other.set(cache_key, value)
    user.delete()


if __name__ == "__main__":
    main()
