"""A drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS `POSTPROCESSING_HOOKS`): what every
operation of the schema states, so that strict validators, linters and client generators read the
API as the server enforces it (tests/contract/test_strict_schema.py runs them):

- a summary (the one-line name generators and docs show): the view's `extend_schema(summary=...)`,
  else SUMMARIES; a new operation with neither fails the schema's generation;
- `security: []` on the operations that take no credentials (signing in, registering);
- request bodies refuse undeclared keys (`additionalProperties: false`), as
  infra/api/serializers.py `StrictInputSerializer` does;
- `Retry-After` on every 429 and 503 answer (infra/api/handler.py sets it);
- `Deprecation` and `Sunset` on every answer of a deprecated operation (infra/api/deprecation.py);
- one `Error` component for every error answer (infra/api/schema.py ERROR_COMPONENTS), each answer
  naming the codes its operation gives in `x-error-codes`;
- every union discriminated on `type` (the events of a game, a table, the feed) ends with a member
  for the types this version does not know, so that a client generated now keeps an event a later
  minor version adds instead of failing on it (docs/client-guide.md §3).
"""

from infra.api.schema import ERROR_COMPONENTS

SUMMARIES = {
    "auth_guest": "Sign in as a new guest",
    "auth_logout": "Revoke this token",
    "auth_logout_all": "Revoke every token",
    "auth_register": "Register an account",
    "auth_token": "Sign in with a password",
    "auth_tokens_list": "List personal access tokens",
    "auth_tokens_create": "Create a personal access token",
    "auth_tokens_delete": "Revoke a personal access token",
    "bots_create": "Create a bot account",
    "game_detail": "View a deal",
    "game_action": "Act in a deal",
    "game_events": "Follow a deal's log",
    "game_final": "The final view of a deal",
    "game_replay": "A finished deal step by step",
    "game_trustee": "Turn 托管 on or off",
    "game_hint": "What the normal bot would do in your seat",
    "matchmaking_stats": "Queue statistics",
    "ticket_create": "Queue for a table",
    "ticket_detail": "View a ticket",
    "ticket_cancel": "Leave the queue",
    "me": "The signed-in user",
    "me_active": "Your tables and tickets",
    "me_events": "Follow your feed",
    "me_restrictions": "Your active sanctions",
    "moderation_audit": "The staff audit log",
    "moderation_game_abort": "Abort a deal",
    "moderation_reports": "The report queue",
    "moderation_report_dismiss": "Dismiss a report",
    "moderation_sanction_create": "Sanction a user",
    "moderation_sanction_revoke": "Revoke a sanction",
    "moderation_seat_collusion": "Record collusion at a seat",
    "moderation_seat_foul": "Record a foul at a seat",
    "rating_leaderboard": "The leaderboard of a preset",
    "report_create": "Report a player",
    "table_list": "List public tables",
    "table_create": "Create a table",
    "table_detail": "View a table",
    "table_events": "Follow a table's log",
    "table_join": "Sit down at a table",
    "table_leave": "Leave a table",
    "table_seat_remove": "Remove the player of a seat",
    "user_games": "A player's deals",
    "user_history": "A player's penalties",
    "user_ratings": "A player's ratings",
    "webhooks_list": "List your webhooks",
    "webhooks_create": "Register a webhook",
    "webhooks_get": "View a webhook",
    "webhooks_delete": "Delete a webhook",
    "webhooks_deliveries": "A webhook's deliveries",
    "webhooks_redeliver": "Send a delivery again",
}

_RETRY_AFTER = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "integer", "minimum": 0},
}

_DEPRECATION_HEADERS = {
    "Deprecation": {
        "description": "RFC 9745: when this operation was deprecated, as `@<unix seconds>`.",
        "schema": {"type": "string"},
    },
    "Sunset": {
        "description": "RFC 8594: the HTTP-date after which this operation may be gone.",
        "schema": {"type": "string"},
    },
}

_METHODS = ("get", "put", "post", "delete", "patch")


def complete_operations(result, generator, request, public):
    schemas = result.get("components", {}).get("schemas", {})
    missing = []
    for path, item in result["paths"].items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            summary = operation.get("summary") or SUMMARIES.get(operation["operationId"])
            if summary is None:
                missing.append(f"{method.upper()} {path} ({operation['operationId']})")
            else:
                operation["summary"] = summary
            # drf-spectacular leaves `security` out where a view has no authentication classes,
            # which a reader takes as "the document's default"; this API has none: say "nothing".
            operation.setdefault("security", [])
            for status, response in operation.get("responses", {}).items():
                if status in ("429", "503"):
                    response.setdefault("headers", {})["Retry-After"] = dict(_RETRY_AFTER)
                if int(status) >= 400:
                    examples = response.get("content", {}).get("application/json", {}).get("examples", {})
                    response["x-error-codes"] = [example["value"]["code"] for example in examples.values()]
                if operation.get("deprecated"):
                    response.setdefault("headers", {}).update(
                        {name: dict(header) for name, header in _DEPRECATION_HEADERS.items()}
                    )
            body = operation.get("requestBody", {}).get("content", {})
            for media in body.values():
                _close(media.get("schema", {}), schemas, seen=set())
    schemas.update(ERROR_COMPONENTS)
    _open_unions(schemas)
    # A spectator's view is the one without a seat: a seated view (which has every public field too)
    # must not match it as well, or `oneOf` of the two would match twice.
    if "GameSpectatorView" in schemas:
        schemas["GameSpectatorView"]["not"] = {"properties": {"seat": {}}, "required": ["seat"]}
    if missing:
        raise ValueError(
            f"operations without a summary: {missing}; give one in infra/api/schema_hooks.py "
            "SUMMARIES or as extend_schema(summary=...)"
        )
    return result


def _close(schema: dict, schemas: dict, seen: set) -> None:
    """`additionalProperties: false` on every object of a request body that declares its keys."""
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[1]
        if name in seen:
            return
        seen.add(name)
        schema = schemas[name]
    if "properties" in schema:
        schema.setdefault("additionalProperties", False)
        for child in schema["properties"].values():
            _close(child, schemas, seen)
    for key in ("items",):
        if isinstance(schema.get(key), dict):
            _close(schema[key], schemas, seen)
    for key in ("allOf", "oneOf", "anyOf"):
        for child in schema.get(key, []):
            _close(child, schemas, seen)


def _open_unions(schemas: dict) -> None:
    """Each `oneOf` discriminated on `type` gets a last member, `Unknown<Union>`: an object whose `type`
    is none of the known ones (so that a known event still matches exactly one member), its other
    keys kept as they are. Generators that try the members in order (openapi-python-client) reach it
    only for a new type; a client switching on `type` treats it in its default branch."""
    for name, schema in list(schemas.items()):
        discriminator = schema.get("discriminator", {})
        if "oneOf" not in schema or discriminator.get("propertyName") != "type":
            continue
        fallback = f"Unknown{name}"
        known = sorted(discriminator.get("mapping", {}))
        schemas[fallback] = {
            "type": "object",
            "description": (
                f"A {name} of a type this version of the schema does not know (a later minor version "
                "added it): keep it or skip it, never fail on it."
            ),
            "properties": {
                "type": {"type": "string", "not": {"enum": known}},
            },
            "required": ["type"],
            "additionalProperties": True,
        }
        reference = {"$ref": f"#/components/schemas/{fallback}"}
        if reference not in schema["oneOf"]:
            schema["oneOf"].append(reference)
        # OpenAPI 3.2's `defaultMapping`, as an extension of 3.1's discriminator: the member of a
        # value the mapping does not list.
        discriminator["x-defaultMapping"] = reference["$ref"]
