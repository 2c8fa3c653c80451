"""The server tells an app too old to talk to it to update (docs/deploy.md "Minimum client version").

An app in a store stays un-updated on many phones for a year or more. When an operator must stop
serving old builds (a rule they would get wrong, a shape they cannot read), he sets
API_MIN_CLIENT_VERSION: a request whose `X-Client-Version` is below it is answered `426
upgrade_required` in the one error shape, with the minimum and the store link
(API_CLIENT_UPGRADE_URL) in `extra`, so the app can say "please update" instead of failing in
stranger ways. Off by default (no minimum). A request without the header (a browser, an integrator's
script) is never refused by this; a header that is not a version (PEP 440, e.g. `2.3.1`) is `400
invalid_request` while a minimum is set. The event server's followed logs are not gated: an old app
hears it on its next request to the web role.
"""

from django.conf import settings
from packaging.version import InvalidVersion, Version

from infra.api.edge_headers import is_api_path
from infra.api.errors import ApiError, ErrorCode
from infra.api.handler import error_response

CLIENT_VERSION_HEADER = "X-Client-Version"


def client_refusal(value: str | None) -> ApiError | None:
    """The error that answers a client sending `value` as its version, or None to go on."""
    minimum = settings.API_MIN_CLIENT_VERSION
    if not minimum or value is None:
        return None
    try:
        version = Version(value)
    except InvalidVersion:
        return ApiError(
            ErrorCode.INVALID_REQUEST, f"{CLIENT_VERSION_HEADER} is not a version (e.g. 2.3.1)."
        )
    if version >= Version(minimum):
        return None
    return ApiError(
        ErrorCode.UPGRADE_REQUIRED,
        f"This app is too old: update it to {minimum} or later.",
        extra={"minimum_version": minimum, "upgrade_url": settings.API_CLIENT_UPGRADE_URL},
    )


def client_version_middleware(get_response):
    def middleware(request):
        if is_api_path(request.path):
            refusal = client_refusal(request.headers.get(CLIENT_VERSION_HEADER))
            if refusal is not None:
                return error_response(refusal)
        return get_response(request)

    return middleware
