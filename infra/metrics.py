"""The figures an operator watches, as Prometheus metrics, and one call per figure for the code that
knows it happened.

Call the `record_*` functions from anywhere (web or worker); they never raise, so a metric can never
fail a move. Labels are bounded by construction (presets, action types, outcomes, route patterns):
never pass an id or free text as a label.

Multi-process: with `PROMETHEUS_MULTIPROC_DIR` set in the environment *before the process starts*,
prometheus-client writes every value to files there and the scrape (infra/metrics_view.py) sums the
files of all processes: gunicorn's workers behind one /metrics, a prefork Celery worker's children
behind one worker endpoint. Figures that the database already holds (tables by status, waiting
tickets) are not counted here but read at scrape time (infra/metrics_collector.py).
"""

import logging
import os
import re

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, multiprocess

logger = logging.getLogger(__name__)

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# Timer lateness: a deadline task is due to the millisecond; the sweep catches lost ones seconds late.
_LATENESS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60)

http_requests = Counter(
    "baohuang_http_requests",
    "HTTP requests answered, by route pattern, method and status.",
    ["route", "method", "status"],
)
http_request_duration = Histogram(
    "baohuang_http_request_duration_seconds",
    "Time to answer an HTTP request (long-polls include their wait), by route pattern, method and status.",
    ["route", "method", "status"],
    buckets=_LATENCY_BUCKETS,
)
game_actions = Counter(
    "baohuang_game_actions",
    "Actions applied by players and bots through the move service, by preset and action type.",
    ["preset", "type"],
)
game_action_duration = Histogram(
    "baohuang_game_action_duration_seconds",
    "Time to apply one action, from the service call to its commit, by preset and action type.",
    ["preset", "type"],
    buckets=_LATENCY_BUCKETS,
)
deals_ended = Counter(
    "baohuang_deals_ended",
    "Deals that ended, by preset and outcome: over (scored), void (redealt), unscored (all on trustee).",
    ["preset", "outcome"],
)
timeouts = Counter("baohuang_timeouts", "Seats whose turn deadline passed, by preset.", ["preset"])
trustee_actions = Counter(
    "baohuang_trustee_actions", "Actions played by 托管 (trustee) for a seat, by preset.", ["preset"]
)
timer_lateness = Histogram(
    "baohuang_timer_lateness_seconds",
    "From a turn deadline to the commit of the action it caused.",
    buckets=_LATENESS_BUCKETS,
)
bot_actions = Counter(
    "baohuang_bot_actions", "Actions played by bots, by preset and action type.", ["preset", "type"]
)
webhook_deliveries = Counter(
    "baohuang_webhook_deliveries", "Webhook delivery attempts, by outcome.", ["outcome"]
)
push_sent = Counter(
    "baohuang_push_sent",
    "Push attempts to devices, by platform, feed entry kind and outcome (docs/notifications.md).",
    ["platform", "kind", "outcome"],
)
ticket_wait = Histogram(
    "baohuang_ticket_wait_seconds",
    "How long a matchmaking ticket waited until it was matched, by preset.",
    ["preset"],
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300),
)
celery_task_failures = Counter(
    "baohuang_celery_task_failures", "Celery tasks that raised, by task name.", ["task"]
)

DEAL_OUTCOMES = ("over", "void", "unscored", "aborted")
# Outcomes are the webhook code's own words (`delivered`, `failed`, `gave_up`, ...); anything that is
# not a short identifier is counted as `other` so that a response text can never become a label.
_OUTCOME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def process_registry() -> CollectorRegistry:
    """What this process counted, or in multi-process mode what all processes sharing the folder did."""
    if multiprocess_dir() is None:
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def _label(value: object) -> str:
    # A label is a short, bounded value; a long one is a wiring mistake that must not explode series.
    return str(value)[:64]


def _safely(record):
    def wrapper(*args, **kwargs):
        try:
            record(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a metric must never fail the work it measures
            logger.warning("metric %s not recorded", record.__name__, exc_info=True)

    wrapper.__name__ = record.__name__
    wrapper.__doc__ = record.__doc__
    return wrapper


# Every request records one pair of series; the pair is looked up once per label set (a dict hit
# instead of two `labels()` calls, on the path of every request).
_http_series: dict[tuple[str, str, int], tuple] = {}


@_safely
def record_http_request(*, route: str, method: str, status: int, seconds: float) -> None:
    key = (route, method, status)
    series = _http_series.get(key)
    if series is None:
        labels = {"route": _label(route), "method": _label(method), "status": _label(status)}
        series = _http_series[key] = (http_requests.labels(**labels), http_request_duration.labels(**labels))
    series[0].inc()
    series[1].observe(seconds)


@_safely
def record_action(*, preset: str, type: str, seconds: float) -> None:  # noqa: A002 - the action's field
    """One action applied through the move service (a player's or a bot's) and how long it took:
    `seconds` from the start of the service call (before the row lock) to its commit. Actions that
    托管 plays (after a timeout or by choice) are counted by record_trustee_action instead."""
    game_actions.labels(preset=_label(preset), type=_label(type)).inc()
    game_action_duration.labels(preset=_label(preset), type=_label(type)).observe(seconds)


@_safely
def record_deal_end(*, preset: str, outcome: str) -> None:
    """A deal ended: outcome is `over`, `void` or `unscored` (an over deal that is not scored)."""
    deals_ended.labels(preset=_label(preset), outcome=outcome if outcome in DEAL_OUTCOMES else "other").inc()


@_safely
def record_timeout(*, preset: str, seats: int = 1) -> None:
    """Seats timed out by a passed deadline (each goes on trustee)."""
    timeouts.labels(preset=_label(preset)).inc(seats)


@_safely
def record_trustee_action(*, preset: str, count: int = 1) -> None:
    trustee_actions.labels(preset=_label(preset)).inc(count)


@_safely
def record_timer_lateness(seconds: float) -> None:
    """Seconds from the stored deadline to the commit of the timeout it caused (negative: clamped)."""
    timer_lateness.observe(max(0.0, seconds))


@_safely
def record_bot_action(*, preset: str, type: str) -> None:  # noqa: A002
    bot_actions.labels(preset=_label(preset), type=_label(type)).inc()


@_safely
def record_webhook_delivery(outcome: str) -> None:
    """One delivery attempt, by outcome, e.g. `delivered`, `failed` (to be retried), `gave_up`."""
    webhook_deliveries.labels(outcome=outcome if _OUTCOME.fullmatch(str(outcome)) else "other").inc()


@_safely
def record_push(*, platform: str, kind: str, outcome: str) -> None:
    """One push attempt: `sent`, `gone` (device removed), `retry` (5xx or timeout), `failed`."""
    ok = _OUTCOME.fullmatch
    push_sent.labels(
        platform=_label(platform),
        kind=kind if ok(str(kind)) else "other",
        outcome=outcome if ok(str(outcome)) else "other",
    ).inc()


@_safely
def record_ticket_matched(*, preset: str, seconds: float) -> None:
    """A ticket was seated after waiting `seconds` (those still waiting are read at scrape time)."""
    ticket_wait.labels(preset=_label(preset)).observe(max(0.0, seconds))


@_safely
def record_task_failure(*, task: str) -> None:
    celery_task_failures.labels(task=_label(task)).inc()
