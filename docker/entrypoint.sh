#!/bin/sh
# One image, one role per container: web | events | worker | beat | migrate | manage <manage.py arguments>.
# Extra arguments go to the role's command. ENTRYPOINT_DRY_RUN=1 prints the command instead of
# running it (tests/ops/test_entrypoint.py). docs/deploy.md describes every role and variable.
set -eu

dry_run() { [ "${ENTRYPOINT_DRY_RUN:-0}" = "1" ]; }

run() {
    if dry_run; then
        printf '%s\n' "$*"
        exit 0
    fi
    exec "$@"
}

metrics_dir() {
    # Multi-process metrics (infra/metrics.py): every process of this container writes its figures
    # here. Files left by an earlier run of the container would be summed in, so they are removed.
    export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/baohuang-metrics}"
    if ! dry_run; then
        mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
        find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -type f -name '*.db' -delete
    fi
}

role="${1:-web}"
if [ "$#" -gt 0 ]; then shift; fi

case "$role" in
    web)
        # Django's WSGI application on gunicorn's threaded workers (config/gunicorn.py).
        metrics_dir
        run gunicorn --config python:config.gunicorn "$@"
        ;;
    events)
        # The event server (long-polls and streams) on uvicorn's worker (config/gunicorn_events.py).
        metrics_dir
        run gunicorn --config python:config.gunicorn_events "$@"
        ;;
    worker)
        # SIGTERM is a warm shutdown: running tasks finish, reserved ones go back to the broker.
        # --quiet: no banner. Every log line goes to stderr; a task's print() is logged too (Celery
        # redirects it), so the worker's stdout carries only notices Celery prints outside logging
        # ("worker: Warm shutdown"), which infra/celery_signals.py logs instead: in JSON mode that
        # stdout is dropped, so every line of the container is JSON (docs/deploy.md "Logs").
        metrics_dir
        if [ "${LOG_FORMAT:-text}" = "json" ] && ! dry_run; then
            exec >/dev/null
        fi
        run celery -A config --quiet worker --loglevel "${LOG_LEVEL:-INFO}" --without-gossip --without-mingle "$@"
        ;;
    beat)
        # Exactly one beat per deployment; --quiet: no banner, only log lines.
        run celery -A config --quiet beat --loglevel "${LOG_LEVEL:-INFO}" \
            --schedule "${VAR_DIR:-/app/var}/celerybeat-schedule" "$@"
        ;;
    migrate)
        run python manage.py migrate --noinput "$@"
        ;;
    manage)
        run python manage.py "$@"
        ;;
    *)
        echo "unknown role: $role (expected web, events, worker, beat, migrate or manage)" >&2
        exit 64
        ;;
esac
