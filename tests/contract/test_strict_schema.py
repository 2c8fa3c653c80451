"""docs/openapi.yaml read by validators and linters nobody here wrote: openapi-spec-validator, Redocly
CLI (`recommended`) and Spectral (`spectral:oas`) find no error in it, and it states the constraints
the server enforces (an outside client learns them from the schema, not from a 400)."""

import json

import pytest
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from tests.contract.node_tools import OPENAPI_FILE, run_tool

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema() -> dict:
    return yaml.safe_load(OPENAPI_FILE.read_text())


def _operations(schema: dict) -> dict[str, dict]:
    return {
        operation["operationId"]: operation
        for item in schema["paths"].values()
        for method, operation in item.items()
        if method in METHODS
    }


def _walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*path, index))


def test_openapi_spec_validator_passes(schema):
    assert schema["openapi"] == "3.1.0"
    validate(schema)  # raises with the failing place


def test_redocly_lint_finds_no_problem():
    result = run_tool("redocly", "lint", str(OPENAPI_FILE), "--config", "redocly.yaml", "--format=json")
    report = json.loads(result.stdout)
    problems = [f"{p['ruleId']}: {p['message']} ({p['location'][0]['pointer']})" for p in report["problems"]]
    assert report["totals"]["errors"] == 0, "\n".join(problems)
    assert report["totals"]["warnings"] == 0, "\n".join(problems)


def test_spectral_oas_finds_no_error():
    result = run_tool(
        "spectral", "lint", str(OPENAPI_FILE), "--ruleset", ".spectral.yaml", "--format", "json"
    )
    found = json.loads(result.stdout[result.stdout.index("[") :])
    errors = [
        f"{p['code']}: {p['message']} at {'.'.join(map(str, p['path']))}" for p in found if p["severity"] == 0
    ]
    assert not errors, "\n".join(errors)


def test_no_nullable_keyword_is_left(schema):
    """OpenAPI 3.1 has no `nullable`: a nullable reference is a `oneOf` with a `null` alternative,
    which a JSON Schema validator reads as written (3.0's `nullable` beside `allOf` it ignored)."""
    assert [path for path, node in _walk(schema) if isinstance(node, dict) and "nullable" in node] == []
    components = schema["components"]

    def accepts(schema_: dict, value) -> bool:
        return Draft202012Validator({**schema_, "components": components}).is_valid(value)

    view = components["schemas"]["GameView"]["properties"]
    for name in ("table", "window", "solo"):
        assert accepts(view[name], None), name
    assert accepts(view["roles"]["items"], None)
    must_last = components["schemas"]["GameOptions"]["properties"]["must_last"]
    assert accepts(must_last, None) and accepts(must_last, 6) and not accepts(must_last, 5)
    assert accepts(components["schemas"]["TableSeat"]["properties"]["user"], None)
    assert not accepts(view["table"], "seven")


def test_defaults_are_valid_values(schema):
    """A declared default is a value the property accepts (a client sending it must not get a 400):
    checked with jsonschema against the property itself, references resolved."""
    party = schema["components"]["schemas"]["TicketCreateRequest"]["properties"]["party"]
    assert "default" not in party, party
    components = schema["components"]["schemas"]
    checked = 0
    for name, component in components.items():
        for field, prop in component.get("properties", {}).items():
            if "default" not in prop:
                continue
            subschema = {**prop, "components": schema["components"]}
            validator = Draft202012Validator(subschema)
            assert validator.is_valid(prop["default"]), (name, field, prop["default"])
            checked += 1
    assert checked > 0


def test_every_operation_has_a_summary_a_tag_and_its_security(schema):
    operations = _operations(schema)
    assert all(op.get("summary") and op.get("tags") for op in operations.values())
    declared_tags = {tag["name"] for tag in schema["tags"]}
    assert {tag for op in operations.values() for tag in op["tags"]} <= declared_tags
    for public in ("auth_guest", "auth_register", "auth_token"):
        assert operations[public]["security"] == [], public
    assert {"bearerAuth": []} in operations["game_detail"]["security"]
    assert (
        schema["servers"] and schema["info"]["license"]["identifier"] == "MIT" and schema["info"]["contact"]
    )


def test_declared_constraints(schema):
    operations = _operations(schema)
    for op_id in ("game_events", "table_events", "me_events"):
        parameters = {p["name"]: p for p in operations[op_id]["parameters"]}
        assert parameters["after"]["schema"]["minimum"] == 0
        assert parameters["wait"]["schema"]["minimum"] == 0
    for op_id in ("game_events", "me_events"):
        parameters = {p["name"]: p for p in operations[op_id]["parameters"]}
        assert parameters["Last-Event-ID"]["in"] == "header"
    key = next(p for p in operations["game_action"]["parameters"] if p["name"] == "Idempotency-Key")
    assert (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 255)
    url = schema["components"]["schemas"]["WebhookCreateRequest"]["properties"]["url"]
    assert url["pattern"].startswith("^") and "://" in url["pattern"]
    for op_id, operation in operations.items():
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            name = body["schema"]["$ref"].rsplit("/", 1)[1]
            assert schema["components"]["schemas"][name]["additionalProperties"] is False, op_id
        for status in ("429", "503"):
            if status in operation["responses"]:
                assert "Retry-After" in operation["responses"][status]["headers"], (op_id, status)
        assert "503" in operation["responses"], op_id


def test_the_json_answer_of_a_log_is_its_only_media_type(schema):
    """The stream form is the `x-event-stream` extension: a second media type would make generated
    clients type the JSON body `object | string`."""
    operations = _operations(schema)
    for op_id, item in (("game_events", "GameEvent"), ("me_events", "FeedEvent")):
        assert list(operations[op_id]["responses"]["200"]["content"]) == ["application/json"]
        stream = operations[op_id]["x-event-stream"]
        assert stream["mediaType"] == "text/event-stream"
        assert stream["itemSchema"] == {"$ref": f"#/components/schemas/{item}"}


def test_component_names_carry_no_input_output_noise(schema):
    names = schema["components"]["schemas"]
    assert [name for name in names if "Input" in name or name.endswith("Output")] == []
    assert "bench" not in schema["components"]["schemas"]["GameEvent"]["discriminator"]["mapping"]


def test_a_new_operation_without_a_summary_fails_the_generation():
    from infra.api.schema_hooks import complete_operations

    result = {"paths": {"/x": {"get": {"operationId": "unknown_op", "responses": {}}}}, "components": {}}
    with pytest.raises(ValueError, match="unknown_op"):
        complete_operations(result, None, None, True)
    result["paths"]["/x"]["get"]["summary"] = "Given by the view"
    completed = complete_operations(result, None, None, True)
    assert completed["paths"]["/x"]["get"]["summary"] == "Given by the view"
