"""Django's own middleware, minus two thread hops per middleware on every API request.

Under ASGI, Django's `MiddlewareMixin` runs each `process_request`, `process_view` and
`process_response` hook in a worker thread (`sync_to_async`), because a hook might block. The seven
middlewares below add ~13 such hops to every request: about 5 ms of CPU of a request's 11 in
`bench/api_moves.py` terms (docs/scaling.md). On an API request (`/api/…`) their hooks do no I/O:
the API authenticates with bearer tokens, so the session is never loaded or saved, no message is
stored, and every API view is CSRF-exempt. So for API requests the hooks run right on the event
loop; every other request (the admin, the docs pages) keeps Django's behaviour exactly, hops
included, since there a hook may load or save a session.

Under WSGI (tests' client, a sync worker) nothing changes: these are the Django classes.
"""

from asgiref.sync import sync_to_async
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.middleware import clickjacking, common, csrf, security

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


class _InlineOnApi:
    """Mixin over a `MiddlewareMixin` subclass: its async call runs the hooks inline for API requests."""

    async def __acall__(self, request):
        if not _is_api(request):
            return await super().__acall__(request)
        response = None
        if hasattr(self, "process_request"):
            response = self.process_request(request)
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response


class SecurityMiddleware(_InlineOnApi, security.SecurityMiddleware):
    pass


class SessionMiddleware(_InlineOnApi, sessions.SessionMiddleware):
    pass


class CommonMiddleware(_InlineOnApi, common.CommonMiddleware):
    pass


class CsrfViewMiddleware(_InlineOnApi, csrf.CsrfViewMiddleware):
    def __init__(self, get_response):
        super().__init__(get_response)
        if self.async_mode:
            # Django adapts `process_view` by what it is when the middleware is loaded: an async
            # function is awaited as is, a sync one goes through a thread on every request.
            check = self.process_view
            check_in_thread = sync_to_async(check, thread_sensitive=True)

            async def process_view(request, callback, callback_args, callback_kwargs):
                if _is_api(request):
                    return check(request, callback, callback_args, callback_kwargs)
                return await check_in_thread(request, callback, callback_args, callback_kwargs)

            self.process_view = process_view


class AuthenticationMiddleware(_InlineOnApi, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(_InlineOnApi, messages.MessageMiddleware):
    pass


class XFrameOptionsMiddleware(_InlineOnApi, clickjacking.XFrameOptionsMiddleware):
    pass
