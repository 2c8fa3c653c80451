"""gunicorn with two uvicorn workers in multi-process mode: one /metrics shows what every worker
counted, whichever worker answers the scrape."""

import re

import pytest

from tests.ops.scrape import METRICS_TOKEN, samples, value
from tests.ops.server import get, require_services, running_server

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_scrape_sums_all_gunicorn_workers(tmp_path):
    require_services()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "METRICS_TOKEN": METRICS_TOKEN}
    with running_server("gunicorn", tmp_path / "gunicorn.log", workers=2, env=env) as (_, port):

        def healthz_count() -> float:
            status, body = get(port, "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
            assert status == 200
            return value(
                samples(body.decode()),
                "baohuang_http_requests_total",
                route="healthz",
                method="GET",
                status=200,
            )

        before = healthz_count()
        for _ in range(30):
            assert get(port, "/healthz")[0] == 200
        seen = [healthz_count() for _ in range(6)]
    assert seen == [before + 30] * 6
    pids = {re.search(r"_(\d+)\.db$", path.name).group(1) for path in metrics_dir.glob("*.db")}
    assert len(pids) >= 2, "both workers write to the shared folder"
