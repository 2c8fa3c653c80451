"""Describes the bearer scheme and its scopes to drf-spectacular (imported by AccountsConfig.ready).

Two security schemes: `bearerAuth` (a login or personal access token) and `oauth2` (an OAuth access
token from /o/, authorization code with PKCE). Each operation lists both, the oauth2 one with the
scope the endpoint needs (infra/api/endpoint_scopes.py), which is the same for a personal token.
"""

import re

from django.urls import Resolver404, resolve
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts.scopes import Scope
from infra.api.endpoint_scopes import NO_SCOPE, endpoint_scope


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = ["bearerAuth", "oauth2"]

    def get_security_definition(self, auto_schema):
        scopes = "; ".join(f"`{scope.value}`: {scope.label}" for scope in Scope)
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "description": (
                    "`Authorization: Bearer <token>`: a login token (every scope you may have) or a "
                    f"personal access token (its scopes). Scopes: {scopes}"
                ),
            },
            {
                "type": "oauth2",
                "description": "Third-party apps: authorization code with PKCE; the same header.",
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "/o/authorize/",
                        "tokenUrl": "/o/token/",
                        "refreshUrl": "/o/token/",
                        "scopes": {scope.value: scope.label for scope in Scope},
                    }
                },
            },
        ]

    def get_security_requirement(self, auto_schema):
        scope = endpoint_scope(url_name=_url_name(auto_schema), method=auto_schema.method)
        scopes = [] if scope is NO_SCOPE else [scope] if scope is not None else sorted(Scope.values)
        return [{"bearerAuth": []}, {"oauth2": scopes}]


def _url_name(auto_schema) -> str | None:
    """The URL name of the operation's path (its parameters are all integer ids)."""
    try:
        return resolve(re.sub(r"\{[^}]+\}", "1", auto_schema.path)).url_name
    except Resolver404:
        return None
