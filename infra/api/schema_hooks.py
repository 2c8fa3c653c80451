"""A drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS `POSTPROCESSING_HOOKS`): what every
operation of the schema states, so that strict validators, linters and client generators read the
API as the server enforces it (tests/contract/test_strict_schema.py runs them):

- a summary (the one-line name generators and docs show): the view's `extend_schema(summary=...)`,
  else SUMMARIES; a new operation with neither fails the schema's generation;
- `security: []` on the operations that take no credentials (signing in, registering);
- request bodies refuse undeclared keys (`additionalProperties: false`), as
  infra/api/serializers.py `StrictInputSerializer` does;
- `Retry-After` on every 429 and 503 answer (infra/api/handler.py sets it).
"""

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
            body = operation.get("requestBody", {}).get("content", {})
            for media in body.values():
                _close(media.get("schema", {}), schemas, seen=set())
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
