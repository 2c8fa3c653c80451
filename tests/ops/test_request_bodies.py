"""A request whose body the application answered without reading leaves the connection able to
carry the next request (infra/request_body.py; docs/deploy.md "Request bodies").

A reverse proxy reuses an upstream connection the moment the answer says keep-alive. If the server
then closed it because body bytes were still unread, the proxy's next request on it fails, and a
proxy does not repeat a POST: another client gets a 502/503 (issue: one client's oversize bodies broke
other clients' moves). Each case sends a body the server does not read, then a second request on the
same client connection, which must be answered.
"""

import http.client
import json

import pytest
from django.conf import settings

from tests.ops.server import require_services, running_server

pytestmark = pytest.mark.django_db(transaction=True)


def _send(conn: http.client.HTTPConnection, method: str, path: str, body: bytes) -> tuple[int, dict, dict]:
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read())


def _padded(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    return b'{"pad": "' + b"x" * (size - 11) + b'"}'


@pytest.mark.parametrize(
    ("kind", "method", "path", "size", "first_status"),
    [
        # Refused from its Content-Length before anything reads it (infra/api/error_pages.py).
        ("gunicorn", "POST", "/api/v1/auth/guest", 70_000, 400),
        # Within the limit, answered 401 before the view parses it.
        ("gunicorn", "POST", "/api/v1/tables", 64 * 1024, 401),
        # The events role answers the followed logs' GETs; a body on one is never read.
        ("events", "GET", "/api/v1/me/events", 64 * 1024, 401),
    ],
)
def test_an_unread_body_leaves_the_connection_usable(tmp_path, kind, method, path, size, first_status):
    require_services()
    assert settings.API_MAX_BODY_BYTES == 64 * 1024
    with running_server(kind, tmp_path / "server.log") as (_, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            status, _, body = _send(conn, method, path, _padded(size))
            assert status == first_status and set(body) == {"code", "message", "extra"}, body
            # The same connection (or, had the answer said "Connection: close", a new one that
            # http.client opens itself) carries the next request.
            second = "/api/v1/auth/guest" if kind == "gunicorn" else "/api/v1/me/events"
            status, _, body = _send(conn, "POST" if kind == "gunicorn" else "GET", second, b"{}")
            assert status == (201 if kind == "gunicorn" else 401), body
        finally:
            conn.close()
