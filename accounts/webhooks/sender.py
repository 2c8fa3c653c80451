"""Sending one webhook request without becoming an SSRF proxy (docs/integrations.md).

A URL is checked when it is registered AND when each request is sent, because what a name resolves
to may change in between. The request goes to the very address that was checked (the connection is
made to that IP; TLS still verifies the certificate against the host name), times out quickly, and
never follows a redirect (http.client does not). Private, loopback, link-local and other non-global
addresses are refused unless WEBHOOK_ALLOW_PRIVATE is set, which also allows plain `http`.
"""

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

EXCERPT_CHARS = 500


class UrlRefused(ValueError):
    """The URL may not be called; the message says why (shown to the webhook's owner)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    address: str  # the checked IP the connection goes to


@dataclass(frozen=True)
class SendResult:
    status_code: int | None
    success: bool
    duration_ms: int
    response_excerpt: str
    error: str


def private_allowed() -> bool:
    return bool(settings.WEBHOOK_ALLOW_PRIVATE)


# IPv6 ranges that carry an IPv4 address or are never a public destination, which `is_global`
# (Python's registry of special-purpose blocks) does not refuse by itself.
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated (RFC 4291 2.5.5.1): never a destination
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # well-known NAT64 prefix: the low 32 bits are IPv4
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use NAT64 (RFC 8215): a site's own


def _is_global_unicast(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


def address_is_allowed(address: str) -> bool:
    """A global unicast address, or anything when WEBHOOK_ALLOW_PRIVATE is set.

    An IPv6 address that embeds an IPv4 one reaches that IPv4 host through a translator or tunnel,
    so the embedded address must be global too: IPv4-mapped (`::ffff:127.0.0.1`), NAT64
    (`64:ff9b::7f00:1`), 6to4 (`2002:7f00:1::1`) and Teredo. IPv4-compatible addresses (`::7f00:1`,
    deprecated), local-use NAT64 (64:ff9b:1::/48) and deprecated site-local space (fec0::/10) are
    refused whatever they hold."""
    if private_allowed():
        return True
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _is_global_unicast(ip)
    if ip in _IPV4_COMPATIBLE or ip in _NAT64_LOCAL or ip.is_site_local:
        return False
    embedded: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        embedded.append(ip.ipv4_mapped)
    if ip in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        embedded.append(ip.sixtofour)
    if ip.teredo is not None:
        embedded.extend(ip.teredo)  # (server, client)
    if embedded:
        return all(_is_global_unicast(v4) for v4 in embedded)
    return _is_global_unicast(ip)


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UrlRefused(f"{host} does not resolve.") from exc
    return list(dict.fromkeys(info[4][0] for info in infos))


def target_check(url: str) -> Target:
    """Parse and check `url`; return where to connect. Raises UrlRefused."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused("Not a valid URL.") from exc
    allowed_schemes = ("https", "http") if private_allowed() else ("https",)
    if parts.scheme not in allowed_schemes:
        raise UrlRefused("Webhook URLs must use https.")
    if not parts.hostname:
        raise UrlRefused("The URL has no host.")
    if parts.username or parts.password:
        raise UrlRefused("Credentials in the URL are not allowed; use the signature to authenticate.")
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = resolve(parts.hostname, port)
    # Every address the name has must be public: otherwise a second lookup (by a resolver that
    # rotates) could hand out the private one.
    refused = [address for address in addresses if not address_is_allowed(address)]
    if refused or not addresses:
        raise UrlRefused(f"{parts.hostname} resolves to a private, loopback or link-local address.")
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(parts.scheme, parts.hostname, port, path, addresses[0])


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = target.address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self._address = target.address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post(*, url: str, body: str, headers: dict[str, str], timeout: float | None = None) -> SendResult:
    """POST `body` to `url` (checked again now); any answer other than 2xx is a failure."""
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS if timeout is None else timeout
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        target = target_check(url)
    except UrlRefused as exc:
        return SendResult(None, False, elapsed(), "", f"refused: {exc}")
    connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = connection_class(target, timeout)
    try:
        connection.request(
            "POST",
            target.path,
            body=body.encode(),
            headers={"Content-Type": "application/json", "User-Agent": "baohuang-webhooks/1", **headers},
        )
        response = connection.getresponse()
        excerpt = response.read(EXCERPT_CHARS * 4).decode("utf-8", "replace")[:EXCERPT_CHARS]
        success = 200 <= response.status < 300
        error = "" if success else f"HTTP {response.status}"
        if 300 <= response.status < 400:
            error = f"HTTP {response.status}: redirects are not followed"
        return SendResult(response.status, success, elapsed(), excerpt, error)
    except (OSError, http.client.HTTPException) as exc:
        reason = (
            "timed out" if isinstance(exc, TimeoutError | socket.timeout) else str(exc) or type(exc).__name__
        )
        return SendResult(None, False, elapsed(), "", reason[:EXCERPT_CHARS])
    finally:
        connection.close()
