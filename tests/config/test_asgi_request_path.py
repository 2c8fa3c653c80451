"""The ASGI request path: Django's middleware without thread hops on API requests
(config/inline_middleware.py) and reused request threads (config/request_threads.py)."""

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.middleware import security
from django.test import AsyncClient

from config import request_threads
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def hook_threads(monkeypatch):
    """The thread each SecurityMiddleware.process_request call ran on."""
    seen: list[int] = []
    original = security.SecurityMiddleware.process_request

    def recording(self, request):
        seen.append(threading.get_ident())
        return original(self, request)

    monkeypatch.setattr(security.SecurityMiddleware, "process_request", recording)
    return seen


def test_an_api_request_runs_the_hooks_on_the_event_loop_and_keeps_their_effects(make_user, hook_threads):
    _, token = make_user()
    caller = threading.get_ident()
    response = async_to_sync(AsyncClient().get)("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    # Not on this (the test's) thread, where Django's sync_to_async hops would have run them.
    assert hook_threads and caller not in hook_threads
    # The hooks still did their work: security headers, no session or CSRF cookie for a token client.
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert not response.cookies


def test_an_api_error_keeps_the_one_error_shape(make_user):
    response = async_to_sync(AsyncClient().get)("/api/v1/me")
    assert_error(response, 401, "not_authenticated")


def test_the_admin_keeps_djangos_hops_csrf_and_session(make_user, hook_threads):
    user, _ = make_user(staff=True)
    user.is_superuser = True
    user.save()
    client = AsyncClient(enforce_csrf_checks=True)
    caller = threading.get_ident()
    login_page = async_to_sync(client.get)("/admin/login/")
    assert login_page.status_code == 200
    # Page requests run the hooks in Django's thread hop, which here is the calling thread.
    assert hook_threads == [caller]
    credentials = {"username": user.username, "password": "correct-horse-9", "next": "/admin/"}
    refused = async_to_sync(client.post)("/admin/login/", credentials)
    assert refused.status_code == 403  # no CSRF token
    token = login_page.cookies["csrftoken"].value
    signed_in = async_to_sync(client.post)("/admin/login/", {**credentials, "csrfmiddlewaretoken": token})
    assert signed_in.status_code == 302
    assert async_to_sync(client.get)("/admin/").status_code == 200


def test_consecutive_requests_reuse_one_thread_and_concurrent_ones_get_their_own():
    async def thread_of_a_request(hold: asyncio.Event | None = None) -> int:
        async with request_threads.request_thread():
            if hold is not None:
                await hold.wait()
            return await sync_to_async(threading.get_ident)()

    async def scenario():
        loop_thread = threading.get_ident()
        first = await thread_of_a_request()
        second = await thread_of_a_request()
        hold = asyncio.Event()
        waiting = asyncio.ensure_future(thread_of_a_request(hold))
        await asyncio.sleep(0)
        beside = await thread_of_a_request()
        hold.set()
        return loop_thread, first, second, beside, await waiting

    loop_thread, first, second, beside, held = async_to_sync(scenario)()
    assert first == second != loop_thread
    assert beside != held


def test_idle_threads_beyond_the_cap_are_shut_down(monkeypatch):
    monkeypatch.setattr(request_threads, "MAX_IDLE", 2)
    monkeypatch.setattr(request_threads, "_idle", [])

    async def many_at_once():
        hold = asyncio.Event()

        async def one():
            async with request_threads.request_thread():
                await hold.wait()
                await sync_to_async(lambda: None)()

        tasks = [asyncio.ensure_future(one()) for _ in range(5)]
        await asyncio.sleep(0)
        hold.set()
        await asyncio.gather(*tasks)

    async_to_sync(many_at_once)()
    assert len(request_threads._idle) == 2
