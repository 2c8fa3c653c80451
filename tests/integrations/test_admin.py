"""Admin pages for tokens, OAuth applications, webhooks and deliveries: they open, and no secret shows."""

from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from accounts import services as account_services
from accounts.models import AuthToken, User
from accounts.scopes import Scope
from accounts.webhooks import outbox, services
from accounts.webhooks.models import WebhookDelivery, WebhookMessage

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser(username="root", password="correct-horse-9"))
    return client


def test_token_pages_never_show_the_secret_or_its_hash(admin_client, make_user):
    user, _ = make_user()
    token, key = account_services.personal_token_create(
        user=user, name="club", scopes=["read"], expires_in_days=3, granted=frozenset(Scope.values)
    )
    listing = admin_client.get("/admin/accounts/authtoken/").content.decode()
    page = admin_client.get(f"/admin/accounts/authtoken/{token.pk}/change/").content.decode()
    assert token.prefix in listing and "club" in page
    for html in (listing, page):
        assert key not in html and AuthToken.hash_key(key) not in html


def test_webhook_message_and_delivery_pages(admin_client, make_user, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.WEBHOOK_RETRY_SCHEDULE = []
    user, _ = make_user()
    webhook = services.webhook_create(
        owner=user, url="http://127.0.0.1:9/nobody-listens", events=["game.over"]
    )
    outbox.webhook_enqueue(event="game.over", data={"id": 1}, user_ids=[user.pk])
    message = WebhookMessage.objects.get()
    services.webhook_message_deliver(message_id=message.pk)  # connection refused: logged
    delivery = WebhookDelivery.objects.get()
    pages = [
        admin_client.get("/admin/accounts/webhook/"),
        admin_client.get(f"/admin/accounts/webhook/{webhook.pk}/change/"),
        admin_client.get(f"/admin/accounts/webhookmessage/{message.pk}/change/"),
        admin_client.get(f"/admin/accounts/webhookdelivery/{delivery.pk}/change/"),
        admin_client.get("/admin/accounts/webhookdelivery/"),
    ]
    assert [page.status_code for page in pages] == [200] * 5
    for page in pages:
        assert webhook.secret not in page.content.decode()
    assert message.msg_id in pages[2].content.decode()
    assert delivery.error and delivery.error in pages[2].content.decode()


def test_oauth_pages_mask_the_tokens(admin_client, make_user):
    user, _ = make_user()
    app = get_application_model().objects.create(
        name="Club app",
        user=user,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:8765/cb",
    )
    access = get_access_token_model().objects.create(
        user=user,
        application=app,
        token="secret-access-token-value-1234",
        scope="read",
        expires=timezone.now() + timedelta(hours=1),
    )
    assert admin_client.get(f"/admin/oauth2_provider/application/{app.pk}/change/").status_code == 200
    page = admin_client.get(f"/admin/oauth2_provider/accesstoken/{access.pk}/change/")
    assert page.status_code == 200 and "secret-access-token-value-1234" not in page.content.decode()
