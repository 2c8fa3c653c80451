import pytest
from push_notifications.settings import PUSH_NOTIFICATIONS_SETTINGS

from config.celery import app
from tests.push.webpush_service import WebPushService, vapid_keys


@pytest.fixture
def webpush_service(settings, monkeypatch):
    """The loopback Web Push service, trusted by the worker's HTTPS client, with a VAPID key pair
    configured as docs/deploy.md says."""
    private, public = vapid_keys()
    settings.WEBHOOK_ALLOW_PRIVATE = True  # the endpoint is on loopback
    # The library reads the settings' dict it was given at start-up: changed in place.
    monkeypatch.setitem(PUSH_NOTIFICATIONS_SETTINGS, "WP_PRIVATE_KEY", private)
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    with WebPushService() as service:
        service.vapid_public_key = public
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", service.ca_file)
        yield service


@pytest.fixture(autouse=True)
def _task_queue_empty():
    """The push tests run the tasks queued on the in-memory broker (tests/push/helpers.py); what
    earlier tests of the run left there is not theirs to run."""
    with app.connection_for_write() as connection:
        queue = connection.SimpleQueue(app.conf.task_default_queue)
        try:
            queue.clear()
        finally:
            queue.close()
