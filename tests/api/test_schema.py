"""The OpenAPI schema: it generates without warnings, and the app honours it under fuzzing."""

import random

import pytest
from django.core.management import call_command

SCHEMA_URL = "/api/schema/?format=json"


def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_schema_is_served_without_authentication(client):
    response = client.get(SCHEMA_URL)
    assert response.status_code == 200
    assert "/api/v1/games/{game_id}/actions" in response.json()["paths"]


@pytest.mark.django_db(transaction=True)
def test_fuzzed_requests_get_no_server_error_and_match_the_schema(make_table, settings):
    """Schemathesis against the in-process WSGI app, as a seated player of a running deal.

    Half of the generated ids are replaced by the real table and game, so the fuzzed bodies reach
    the services rather than stopping at 404.
    """
    import schemathesis
    from hypothesis import HealthCheck, given
    from hypothesis import settings as hypothesis_settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

    from accounts.services import token_create
    from config.wsgi import application

    # Fuzzed `wait` values would otherwise hold each long-poll for up to 30 s.
    settings.EVENTS_MAX_WAIT = 0.5
    setup = make_table()
    real_ids = {"game_id": setup["game"], "table_id": setup["table"], "user_id": setup["users"][0].pk}
    headers = {"Authorization": f"Bearer {setup['tokens'][0]}"}
    schema = schemathesis.openapi.from_wsgi(SCHEMA_URL, application)
    checks = [not_a_server_error, status_code_conformance, response_schema_conformance]
    rng = random.Random(0)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    for operation in operations:

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=30,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case):
            for name in case.path_parameters or {}:
                if name in real_ids and rng.random() < 0.5:
                    case.path_parameters[name] = real_ids[name]
            # Logging out revokes the token used: give that endpoint a token of its own.
            token_headers = headers
            if case.path.endswith("/auth/logout"):
                token_headers = {"Authorization": f"Bearer {token_create(user=setup['users'][0])}"}
            # A session is revoked by its id, a small number the fuzzer tries: another player's
            # token asks, so the seated player's own stays.
            if case.method.upper() == "DELETE" and "/auth/tokens/" in case.path:
                token_headers = {"Authorization": f"Bearer {token_create(user=setup['users'][1])}"}
            response = case.call(headers=token_headers)
            case.validate_response(response, checks=checks)

        run()


def test_operations_without_credentials_never_answer_missing_scope(client):
    """`403 missing_scope` is a token's answer (docs/integrations.md "Scopes"): an operation that takes
    no credentials (no security requirement: auth/token, auth/register, auth/guest) cannot give it."""
    paths = client.get(SCHEMA_URL).json()["paths"]
    open_operations = []
    for path, operations in paths.items():
        for method, operation in operations.items():
            if operation.get("security") not in (None, [], [{}]):
                continue
            open_operations.append(operation["operationId"])
            forbidden = operation["responses"].get("403", {}).get("content", {}).get("application/json", {})
            codes = forbidden.get("schema", {}).get("properties", {}).get("code", {}).get("enum", [])
            assert "missing_scope" not in codes, f"{method.upper()} {path}"
    assert {"auth_token", "auth_register", "auth_guest"} <= set(open_operations)
