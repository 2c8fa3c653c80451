"""The process-wide stop mark (events/shutdown.py): a wait gives up when it is set, and the stop
signals set it before handing over to the handler that was there before (the server's)."""

import asyncio
import os
import signal

import pytest

from events import shutdown


@pytest.fixture
def clean_shutdown(monkeypatch):
    saved = {signum: signal.getsignal(signum) for signum in shutdown.STOP_SIGNALS}
    monkeypatch.setattr(shutdown, "_installed", False)
    shutdown.reset()
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        shutdown.reset()


def test_a_wait_is_given_up_when_the_process_is_told_to_stop(clean_shutdown):
    async def scenario() -> bool:
        waiting = asyncio.ensure_future(shutdown.unless_stopping(asyncio.sleep(60)))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        shutdown.request()
        await asyncio.wait_for(waiting, timeout=10)
        return shutdown.is_requested()

    assert asyncio.run(scenario()) is True


def test_a_wait_that_ends_first_returns_normally(clean_shutdown):
    async def scenario() -> None:
        await shutdown.unless_stopping(asyncio.sleep(0.01))

    asyncio.run(scenario())
    assert not shutdown.is_requested()


def test_after_the_stop_mark_a_new_wait_does_not_start(clean_shutdown):
    shutdown.request()

    async def scenario() -> None:
        await asyncio.wait_for(shutdown.unless_stopping(asyncio.sleep(60)), timeout=10)

    asyncio.run(scenario())


def test_sigterm_sets_the_mark_and_still_reaches_the_servers_handler(clean_shutdown):
    received = []
    signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    shutdown.install_signal_handlers()
    shutdown.install_signal_handlers()  # a second call (lifespan, then a request) chains nothing twice
    os.kill(os.getpid(), signal.SIGTERM)
    assert shutdown.is_requested()
    assert received == [signal.SIGTERM]
