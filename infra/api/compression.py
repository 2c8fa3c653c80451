"""Compression of the answers the Django roles give (docs/security.md "Compression and BREACH").

Django's GZipMiddleware, with its BREACH mitigation (a random-length gzip header, "Heal the
Breach"), for the JSON API, the pages and the static files alike, except answers marked
`Cache-Control: no-store`: those carry a secret (a new bearer token, next to a username or token name
the client chose), and a secret beside client-chosen text is what BREACH reads through compressed
lengths. They are small and answered once, so nothing worth compressing is lost.
"""

from django.middleware.gzip import GZipMiddleware
from django.utils.cache import add_never_cache_headers


def secret_answer(response):
    """Mark an answer that carries a secret: never stored by a cache (RFC 6749 §5.1 asks this of
    token answers) and never compressed (below)."""
    add_never_cache_headers(response)
    return response


class ApiGZipMiddleware(GZipMiddleware):
    def process_response(self, request, response):
        if "no-store" in response.get("Cache-Control", ""):
            return response
        return super().process_response(request, response)
