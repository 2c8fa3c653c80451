"""The headers of the API's answers, the same from the web role (the middleware below) and the event
server (events/responses.py).

Every answer under /api/ names the API version it speaks (`API-Version`, docs/changelog.md "Policy"):
a client in a store for years can log what it talked to. The headers that only mean something to a
page a browser renders (the opener policy, framing, the referrer policy) are left off the JSON API:
on a slow link they were a third of a move's download; the pages under /api/docs/ keep them.
"""

from django.conf import settings

API_VERSION_HEADER = "API-Version"
PAGE_ONLY_HEADERS = ("Cross-Origin-Opener-Policy", "X-Frame-Options", "Referrer-Policy")


def api_version() -> str:
    return settings.SPECTACULAR_SETTINGS["VERSION"]


def is_api_path(path: str) -> bool:
    return path.startswith("/api/")


def api_headers_middleware(get_response):
    def middleware(request):
        response = get_response(request)
        if is_api_path(request.path):
            if not response.get("Content-Type", "").startswith("text/html"):
                for name in PAGE_ONLY_HEADERS:
                    if name in response:
                        del response[name]
            response[API_VERSION_HEADER] = api_version()
        return response

    return middleware
