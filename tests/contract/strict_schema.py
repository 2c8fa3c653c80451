"""The served OpenAPI schema as strict JSON Schema validators, one per documented response.

OpenAPI 3.0's `nullable` becomes a JSON Schema `null` alternative, and every object that declares its
properties gets `additionalProperties: false` (in this copy only), so an undeclared key in an answer
fails validation instead of passing silently.
"""

import copy
import re

from jsonschema import Draft202012Validator


def _strict(node):
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _strict(value) for key, value in node.items()}
    nullable = node.pop("nullable", False)
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if nullable:
        if "enum" in node and None not in node["enum"]:
            node["enum"] = [*node["enum"], None]
        if isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        elif "type" not in node:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


class StrictSchema:
    def __init__(self, openapi: dict):
        self.openapi = openapi
        self.components = _strict(copy.deepcopy(openapi["components"]))
        self._templates = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", r"[^/]+", template) + "$"), template)
            for template in openapi["paths"]
        ]
        self._validators: dict = {}

    def template_of(self, path: str) -> str:
        path = path.split("?", 1)[0]
        matches = [template for pattern, template in self._templates if pattern.match(path)]
        assert matches, f"{path} is not in the schema"
        # A literal segment beats a parameter (`tables/{id}` vs a literal path of the same length).
        return min(matches, key=lambda template: template.count("{"))

    def validator(self, path: str, method: str, status: int) -> Draft202012Validator:
        template = self.template_of(path)
        key = (template, method.lower(), str(status))
        if key not in self._validators:
            responses = self.openapi["paths"][template][method.lower()]["responses"]
            assert str(status) in responses, f"{method} {template} does not document status {status}"
            content = responses[str(status)].get("content", {}).get("application/json")
            assert content is not None, f"{method} {template} {status} documents no JSON body"
            schema = {**_strict(copy.deepcopy(content["schema"])), "components": self.components}
            self._validators[key] = Draft202012Validator(schema)
        return self._validators[key]

    def errors(self, path: str, method: str, status: int, body) -> list[str]:
        """Readable validation errors of `body` (empty when it conforms)."""
        found = []
        for error in self.validator(path, method, status).iter_errors(body):
            # oneOf failures say little by themselves; their best sub-error names the key at fault.
            detail = error
            if error.context:
                detail = min(error.context, key=lambda sub: len(sub.message))
            where = "/".join(str(part) for part in detail.absolute_path)
            found.append(
                f"{method.upper()} {self.template_of(path)} {status} at {where}: {detail.message[:300]}"
            )
        return found
