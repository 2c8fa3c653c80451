"""GET /metrics: the Prometheus text format, for callers the settings allow.

Allowed: a request with `Authorization: Bearer <METRICS_TOKEN>`, or one from an address in
METRICS_ALLOWED_IPS (addresses or networks; REMOTE_ADDR only, since a forwarded-for header is the
caller's to invent). With neither setting, nobody is allowed: metrics name routes and volumes that
are nobody's business by default.
"""

import hmac
import ipaddress
import logging

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from infra import metrics
from infra.api.errors import ApiError, ErrorCode
from infra.api.plain import error_response, get_only
from infra.metrics_collector import DatabaseCollector

logger = logging.getLogger(__name__)

_database_registry = CollectorRegistry(auto_describe=False)
_database_registry.register(DatabaseCollector())


def _networks(value) -> list:
    networks = []
    for item in value:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            logger.error("METRICS_ALLOWED_IPS: %r is not an address or network; ignored", item)
    return networks


def _address_allowed(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(settings.METRICS_ALLOWED_IPS))


def _token_matches(header: str | None) -> bool:
    token = settings.METRICS_TOKEN
    if not token or not header:
        return False
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def _refusal(request) -> JsonResponse | None:
    if _token_matches(request.headers.get("Authorization")):
        return None
    if _address_allowed(request.META.get("REMOTE_ADDR")):
        return None
    if settings.METRICS_TOKEN:
        return error_response(
            ApiError(ErrorCode.NOT_AUTHENTICATED, "A valid metrics token is required."),
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    return error_response(ApiError(ErrorCode.PERMISSION_DENIED, "Metrics are not available to this address."))


@get_only
def metrics_view(request):
    refusal = _refusal(request)
    if refusal is not None:
        return refusal
    body = generate_latest(metrics.process_registry()) + generate_latest(_database_registry)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
