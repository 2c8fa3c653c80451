"""The web role reads what is left of a request's body before it answers (docs/deploy.md "Request
bodies").

gunicorn announces keep-alive whatever the application did with the body: it drops a `Connection`
header the application sets (WSGI forbids hop-by-hop headers), and after the answer it discards at
most 64 KiB of an unread body, beyond which it closes the connection it has just called reusable. A
reverse proxy may already have sent another client's request on it, and does not repeat a POST: that
client gets a 502. So every body the application answered without reading to the end (an oversize
one refused from its Content-Length, a 401 or 404 before the view parses) is read and discarded here,
up to REQUEST_DRAIN_MAX_BYTES, before the answer leaves: the connection then carries the next request.
A larger body still closes the connection, so a proxy in front must not forward bodies larger than
that (deploy/nginx.conf refuses what the API would refuse). The reading has no deadline of its own:
nginx reads a whole body before it forwards it (proxy_request_buffering, its default), so a client
that trickles one never holds a thread here. The events role (uvicorn) discards unread bodies itself.
"""

from django.conf import settings

_CHUNK = 64 * 1024


def drain_unread_body(application):
    """Wrap a WSGI application so that the request body is consumed before the answer is sent."""

    def drained(environ, start_response):
        response = application(environ, start_response)
        _discard(environ["wsgi.input"], settings.REQUEST_DRAIN_MAX_BYTES)
        return response

    return drained


def _discard(body, limit: int) -> None:
    # wsgi.input ends where this request's body ends (gunicorn frames it by Content-Length or chunks),
    # so reading it never takes bytes of the next request.
    left = limit
    try:
        while left > 0:
            chunk = body.read(min(left, _CHUNK))
            if not chunk:
                return
            left -= len(chunk)
    except OSError:
        # The client went away mid-body: there is no next request to protect.
        return
