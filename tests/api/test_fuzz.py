"""A hostile fuzz over the whole OpenAPI schema: no request is a 5xx (issue 26, docs/security.md
"Hostile input"). scripts/test runs it on PostgreSQL and again on SQLite, whose failures differ (a NUL
is refused by PostgreSQL's text type and stored by SQLite; an integer past 64 bits overflows in
SQLite's driver and is a numeric in PostgreSQL's).

Every operation gets schemathesis's negative cases (values the schema forbids) and positive ones,
and the strategy below breaks some of each further, the way the hostile probe did: a string made a
lone surrogate or a NUL, an integer past 64 bits, an id that no row can have, a forged cursor.
Deterministic (`derandomize`: the same cases every run) and small: see MAX_EXAMPLES.
"""

import base64

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMA_URL = "/api/schema/?format=json"
# Per operation and mode, so at most 48 operations x 2 modes x 6 = 576 requests: the test's call took
# 46 s (PostgreSQL) and 60 s (SQLite) of wall time on the shared, loaded 2-core machine
# (`pytest tests/api/test_fuzz.py --durations=2`, 2026-12-03).
MAX_EXAMPLES = 6

HOSTILE_STRINGS = ["\ud800", "\udfff", "a\x00b", "\x00", "\ud83d\ude00", "9" * 30, "-1", "", " "]
# A URL holds no lone surrogate (no client can percent-encode one): the query gets the rest.
HOSTILE_QUERY_STRINGS = [text for text in HOSTILE_STRINGS if not "\ud800" <= text[:1] <= "\udfff"]
HOSTILE_NUMBERS = [2**63, 2**64, -(2**63) - 1, 10**30, 0, -1, 1e308]
HOSTILE_IDS = [2**63, 2**64, 0, "9" * 40]
HOSTILE_CURSORS = [
    base64.b64encode(text.encode()).decode() for text in ("p=abc", "p=-1", "o=-5", "p=\x00", "r=x")
] + [
    "%%%",
    "cD1hYmM",
]


def _hostile_value(draw, value, *, strings=HOSTILE_STRINGS):
    if isinstance(value, str):
        return draw(st.sampled_from(strings))
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return draw(st.sampled_from(HOSTILE_NUMBERS))
    return value


@st.composite
def _broken(draw, case, real_ids: dict):
    """`case`, with some of its path ids real (so the bodies reach the services) or hostile, and
    perhaps one body member or query parameter replaced by a hostile value."""
    for name in case.path_parameters or {}:
        choice = draw(st.sampled_from(["real", "real", "keep", "hostile"]))
        if choice == "real" and name in real_ids:
            case.path_parameters[name] = real_ids[name]
        elif choice == "hostile":
            case.path_parameters[name] = draw(st.sampled_from(HOSTILE_IDS))
    if isinstance(case.body, dict) and case.body and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(case.body, key=str)))
        case.body[key] = _hostile_value(draw, case.body[key])
    if case.query is not None and case.query and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(case.query, key=str)))
        case.query[key] = str(_hostile_value(draw, case.query[key], strings=HOSTILE_QUERY_STRINGS))
    if case.query is not None and "cursor" in case.query:
        case.query["cursor"] = draw(st.sampled_from(HOSTILE_CURSORS))
    return case


def _assert_answered(case, response) -> None:
    assert response.status_code < 500, (
        case.method,
        case.formatted_path,
        case.query,
        case.body,
        response.text[:300],
    )
    if response.status_code >= 400 and "json" in response.headers.get("Content-Type", ""):
        body = response.json()
        assert set(body) == {"code", "message", "extra"}, (case.method, case.formatted_path, body)


def _fuzz(operation, mode, token: str, real_ids: dict) -> None:
    @given(data=st.data())
    @hypothesis_settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(data):
        case = data.draw(operation.as_strategy(generation_mode=mode))
        case = data.draw(_broken(case, real_ids))
        response = case.call(headers={"Authorization": f"Bearer {token}"})
        _assert_answered(case, response)

    try:
        run()
    except Unsatisfiable:
        # An operation without parameters or body has nothing the schema forbids: no negative case.
        assert mode == GenerationMode.NEGATIVE, operation.label


def test_no_hostile_request_is_a_server_error(make_table, make_user, settings):
    import schemathesis

    from accounts.services import token_create
    from config.wsgi import application

    # Fuzzed `wait` values would otherwise hold each long-poll for up to 30 s.
    settings.EVENTS_MAX_WAIT = 0.2
    setup = make_table()
    _, staff_token = make_user(staff=True)
    real_ids = {"game_id": setup["game"], "table_id": setup["table"], "user_id": setup["users"][0].pk}
    schema = schemathesis.openapi.from_wsgi(SCHEMA_URL, application)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    for operation in operations:
        for mode in (GenerationMode.NEGATIVE, GenerationMode.POSITIVE):
            # Staff reach the moderation services; logging out revokes the token used: those get a
            # token of their own each time.
            path = operation.path
            if path.startswith("/api/v1/moderation") or path.endswith("/remove"):
                token = staff_token
            elif path.endswith(("/auth/logout", "/auth/logout-all")):
                token = token_create(user=setup["users"][1])
            else:
                token = setup["tokens"][0]

            _fuzz(operation, mode, token, real_ids)
