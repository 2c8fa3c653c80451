"""openapi-core, a validator nobody here wrote, checks every request and JSON answer of a played deal
against docs/openapi.yaml (OpenAPI 3.1): nullable references, the declared request constraints and
the response bodies as a strict outside reader sees them."""

import json
import random
from pathlib import Path

import pytest
import yaml
from openapi_core import OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse

from tests.api.playing import play_deal

OPENAPI_FILE = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"


class OpenApiCoreClient:
    """Wraps an APIClient: openapi-core validates each request and each JSON answer; the failures
    are gathered in `problems`, the operations seen in `seen`."""

    def __init__(self, client, openapi: OpenAPI, problems: list[str], seen: set):
        self.client, self.openapi, self.problems, self.seen = client, openapi, problems, seen

    def _check(self, response):
        request = DjangoOpenAPIRequest(response.wsgi_request)
        where = f"{request.method.upper()} {response.wsgi_request.get_full_path()} {response.status_code}"
        for check in (
            lambda: self.openapi.validate_request(request),
            lambda: self.openapi.validate_response(request, DjangoOpenAPIResponse(response)),
        ):
            try:
                check()
            except Exception as exc:  # noqa: BLE001 - every validation failure is reported
                causes = [str(exc), *(str(cause) for cause in getattr(exc.__cause__, "schema_errors", []))]
                self.problems.append(f"{where}: {'; '.join(causes)[:600]}")
        if response.get("Content-Type", "").startswith("application/json"):
            self.seen.add((request.method.upper(), response.status_code))
        return response

    def get(self, path, *args, **kwargs):
        return self._check(self.client.get(path, *args, **kwargs))

    def post(self, path, *args, **kwargs):
        return self._check(self.client.post(path, *args, **kwargs))


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    return OpenAPI.from_dict(yaml.safe_load(OPENAPI_FILE.read_text()))


def test_openapi_core_validates_every_answer_of_a_played_deal(openapi, make_table):
    problems: list[str] = []
    seen: set = set()
    setup = make_table(preset="weihai", deals=2)
    clients = [OpenApiCoreClient(client, openapi, problems, seen) for client in setup["clients"]]
    staff = OpenApiCoreClient(setup["staff"], openapi, problems, seen)
    rng = random.Random("openapi-core")
    game_id = setup["game"]
    for _ in range(4):  # a void deal is dealt again: follow the table to a scored one
        game = play_deal(clients, game_id, rng)
        for client in clients:
            assert client.get(f"/api/v1/games/{game_id}/final").status_code == 200
            assert client.get(f"/api/v1/games/{game_id}/events", {"after": 0}).status_code == 200
        detail = staff.get(f"/api/v1/tables/{setup['table']}").json()
        if game.status == "over":
            break
        game_id = detail["current_game"]
    else:
        raise AssertionError("no scored deal in four")
    clients[0].get(f"/api/v1/tables/{setup['table']}/events", {"after": 0})
    clients[0].get("/api/v1/me/events", {"after": 0})
    clients[0].get("/api/v1/me/active")
    clients[0].get(f"/api/v1/users/{setup['users'][0].pk}/ratings")
    # A refusal is an answer too: the deal is over.
    refused = clients[1].post(f"/api/v1/games/{game_id}/actions", {"type": "pass"}, format="json")
    assert refused.status_code == 409
    assert ("POST", 200) in seen and ("GET", 200) in seen
    assert not problems, "\n".join(problems)


def test_openapi_core_refuses_an_answer_that_breaks_the_schema(openapi, make_table):
    """The check above can fail: a game view whose `table` is a string is reported."""
    setup = make_table(preset="weihai")
    problems: list[str] = []
    client = OpenApiCoreClient(setup["clients"][0], openapi, problems, set())
    response = client.client.get(f"/api/v1/games/{setup['game']}")
    broken = response.json()
    broken["table"] = "seven"
    response.content = json.dumps(broken).encode()
    client._check(response)
    assert problems and "table" in problems[0], problems
