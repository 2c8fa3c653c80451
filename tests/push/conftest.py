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


@pytest.fixture
def apns_service(settings, monkeypatch, tmp_path):
    """APNs on loopback (tests/push/apns_service.py), where asyncio's connections to Apple's hosts
    go (tests/push/tunnel.py), with token credentials configured as docs/deploy.md says."""
    import asyncio

    from tests.push.apns_service import APNsService, auth_key
    from tests.push.tunnel import LoopbackEventLoopPolicy

    key_path, public_key = auth_key(str(tmp_path))
    for name, value in {
        "APNS_AUTH_KEY_PATH": key_path,
        "APNS_AUTH_KEY_ID": "KEY1234567",
        "APNS_TEAM_ID": "TEAM123456",
        "APNS_TOPIC": "com.example.baohuang",
        "APNS_USE_SANDBOX": False,
    }.items():
        monkeypatch.setitem(PUSH_NOTIFICATIONS_SETTINGS, name, value)
    service = APNsService(
        public_key=public_key, key_id="KEY1234567", team_id="TEAM123456", topic="com.example.baohuang"
    )
    with service:
        # aioapns checks the certificate against the default trust store, which OpenSSL reads here.
        monkeypatch.setenv("SSL_CERT_FILE", service.ca_file)
        asyncio.set_event_loop_policy(LoopbackEventLoopPolicy(service))
        try:
            yield service
        finally:
            asyncio.set_event_loop_policy(None)


@pytest.fixture
def fcm_service(settings, monkeypatch, tmp_path):
    """FCM and Google's token endpoint on loopback (tests/push/fcm_service.py), reached through the
    HTTPS_PROXY that firebase-admin's requests session honours, with a service account file as
    FCM_CREDENTIALS_PATH."""
    import firebase_admin

    from tests.push.fcm_service import FCMService

    with FCMService() as service:
        settings.FCM_CREDENTIALS_PATH = service.service_account(str(tmp_path))
        monkeypatch.setenv("HTTPS_PROXY", service.proxy_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", service.ca_file)
        yield service
        # The worker initializes its Firebase app once; the next test brings another credential.
        try:
            firebase_admin.delete_app(firebase_admin.get_app())
        except ValueError:
            pass
