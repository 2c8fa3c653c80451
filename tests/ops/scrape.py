"""Reading /metrics in tests: every sample by (name, labels)."""

from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "metrics-test-token-0123456789"


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def family_names(text: str) -> set[str]:
    return {family.name for family in text_string_to_metric_families(text)}


def value(found: dict, name: str, **labels) -> float:
    return found.get((name, frozenset((k, str(v)) for k, v in labels.items())), 0.0)


def scrape(client) -> str:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {METRICS_TOKEN}")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()
