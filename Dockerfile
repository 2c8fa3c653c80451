# syntax=docker/dockerfile:1.7
# One image for every process: `docker run IMAGE web|worker|beat|migrate`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    VAR_DIR=/app/var

WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY accounts ./accounts
COPY matchmaking ./matchmaking
COPY games ./games
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && useradd --system --home /app baohuang \
    && mkdir -p /app/var \
    && chown -R baohuang /app/var

USER baohuang
EXPOSE 8000

COPY --chmod=755 <<'SH' /usr/local/bin/baohuang
#!/bin/sh
set -e
case "${1:-web}" in
  web)     exec gunicorn config.asgi:application -k uvicorn.workers.UvicornWorker \
                --bind 0.0.0.0:8000 --workers "${WEB_WORKERS:-2}" ;;
  worker)  exec celery -A config worker --loglevel "${LOG_LEVEL:-INFO}" ;;
  beat)    exec celery -A config beat --loglevel "${LOG_LEVEL:-INFO}" --schedule /app/var/celerybeat-schedule ;;
  migrate) exec python manage.py migrate --noinput ;;
  *)       exec "$@" ;;
esac
SH

ENTRYPOINT ["/usr/local/bin/baohuang"]
CMD ["web"]
