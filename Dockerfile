# syntax=docker/dockerfile:1.7
# One image for every process: `docker run IMAGE web|worker|beat|migrate` (docker/entrypoint.sh,
# docs/deploy.md). The build stage installs the project into a virtualenv; the run stage gets only
# that virtualenv: no compiler, no pip, no source tree besides manage.py.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# PyICU (usernames' Unicode TR 39 skeletons, accounts/usernames.py) compiles against ICU; the run stage
# gets ICU's shared libraries inside the virtualenv, from this same base image, and no compiler.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends g++ pkg-config libicu-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv \
    && mkdir /opt/venv/lib/icu \
    && cp -a /usr/lib/*-linux-gnu/libicu*.so.* /opt/venv/lib/icu/
COPY pyproject.toml README.md ./
COPY config ./config
COPY accounts ./accounts
COPY matchmaking ./matchmaking
COPY games ./games
COPY web ./web
RUN /opt/venv/bin/pip install --no-cache-dir . \
    && /opt/venv/bin/pip uninstall --yes pip

FROM python:3.11-slim AS run
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    LD_LIBRARY_PATH=/opt/venv/lib/icu \
    VAR_DIR=/app/var \
    PROMETHEUS_MULTIPROC_DIR=/tmp/baohuang-metrics
RUN groupadd --system --gid 10001 baohuang \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --shell /usr/sbin/nologin baohuang \
    && mkdir -p /app/var /tmp/baohuang-metrics \
    && chown 10001:10001 /app/var /tmp/baohuang-metrics
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY manage.py ./
COPY --chmod=755 docker/entrypoint.sh /usr/local/bin/baohuang-entrypoint

USER 10001:10001
# 8000: the API, probes and /metrics; 9808: a worker's metrics when WORKER_METRICS_PORT=9808.
EXPOSE 8000 9808
ENTRYPOINT ["baohuang-entrypoint"]
CMD ["web"]
