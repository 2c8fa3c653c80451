"""Every response example in the schema is itself a valid answer (undeclared keys forbidden), so the
examples a client developer reads in /api/docs/ never contradict the declared shapes."""

from tests.contract.strict_schema import StrictSchema


def test_every_response_example_conforms_to_its_schema(client):
    openapi = client.get("/api/schema/?format=json").json()
    strict = StrictSchema(openapi)
    problems, checked = [], 0
    for template, operations in openapi["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                content = response.get("content", {}).get("application/json", {})
                for name, example in content.get("examples", {}).items():
                    found = strict.errors(template, method, int(status), example["value"])
                    problems += [f"example {name!r}: {problem}" for problem in found]
                    checked += 1
    assert checked > 60
    assert not problems, "\n".join(problems)
