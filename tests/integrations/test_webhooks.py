"""Webhooks (docs/integrations.md): registration, SSRF refusals, signing, attempts, redelivery, disabling.

Deliveries here run in the test process (the service the worker's task calls) against a receiver on
loopback. A URL that must be refused is resolved and refused, never connected to: names resolve
through a patched resolver, so no traffic leaves the machine.
"""

import json
from urllib.parse import urlsplit

import pytest
from standardwebhooks.webhooks import Webhook as Verifier

from accounts.webhooks import outbox, sender, services
from accounts.webhooks.models import MessageStatus, Webhook, WebhookDelivery, WebhookMessage
from tests.conftest import assert_error
from tests.integrations.receiver import Receiver

PUBLIC_ADDRESS = "93.184.215.14"


@pytest.fixture
def resolver(monkeypatch):
    """Names resolve from this dict (unknown names: no answer); what was asked is recorded."""
    table: dict[str, list[str]] = {"hooks.example": [PUBLIC_ADDRESS]}

    def resolve(host, port):
        if host in table:
            return list(table[host])
        # IP literals resolve to themselves without any lookup.
        import ipaddress

        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            raise sender.UrlRefused(f"{host} does not resolve.") from None

    monkeypatch.setattr(sender, "resolve", resolve)
    return table


@pytest.fixture
def no_connections(monkeypatch):
    """Fails the test if anything tries to open a connection."""
    attempts = []

    def refuse(address, *args, **kwargs):
        attempts.append(address)
        raise AssertionError(f"connected to {address}")

    monkeypatch.setattr(sender.socket, "create_connection", refuse)
    return attempts


def _create(client, url, events=("game.over",)):
    return client.post("/api/v1/webhooks", {"url": url, "events": list(events)}, format="json")


def test_registering_a_public_https_url_returns_the_secret_once(make_user, make_client, resolver):
    user, token = make_user()
    client = make_client(token)
    response = _create(client, "https://hooks.example/bh", ["game.over", "rating.changed"])
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["secret"].startswith("whsec_") and body["active"] is True
    assert body["events"] == ["game.over", "rating.changed"]
    listed = client.get("/api/v1/webhooks").json()["webhooks"]
    assert [w["id"] for w in listed] == [body["id"]] and "secret" not in listed[0]
    assert Webhook.objects.get(pk=body["id"]).owner == user


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://[::1]/hook",
        "https://localhost/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:127.0.0.1]/hook",
        # IPv4 inside IPv6: IPv4-compatible, NAT64, 6to4, Teredo, and deprecated site-local space.
        "https://[::7f00:1]/h",
        "https://[::127.0.0.1]/h",
        "https://[::5db8:d70e]/h",
        "https://[64:ff9b::7f00:1]/h",
        "https://[64:ff9b::a9fe:a9fe]/h",
        "https://[64:ff9b:1::5db8:d70e]/h",
        "https://[2002:7f00:1::1]/h",
        "https://[2002:a9fe:a9fe::1]/h",
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h",
        "https://[fec0::1]/h",
        "https://192.168.1.10/hook",
        "http://hooks.example/hook",  # plain http
        "https://user:pw@hooks.example/hook",
        "ftp://hooks.example/hook",
    ],
)
def test_private_addresses_and_plain_http_are_refused_at_registration(
    make_user, make_client, resolver, no_connections, settings, url
):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    resolver["localhost"] = ["127.0.0.1", "::1"]
    _, token = make_user()
    body = assert_error(_create(make_client(token), url), 400, "invalid_request")
    assert "url" in body["extra"]
    assert not Webhook.objects.exists()
    assert no_connections == []


@pytest.mark.parametrize("address", ["64:ff9b::5db8:d70e", "2002:5db8:d70e::1", "2606:2800:21f:cb07::1"])
def test_public_ipv6_addresses_are_accepted(make_user, make_client, resolver, settings, address):
    """A NAT64 or 6to4 address of a public IPv4 host is as public as the host."""
    settings.WEBHOOK_ALLOW_PRIVATE = False
    resolver["v6.example"] = [address]
    _, token = make_user()
    assert _create(make_client(token), "https://v6.example/hook").status_code == 201


def test_a_name_that_turns_to_embedded_loopback_is_refused_at_delivery(
    make_user, resolver, no_connections, settings
):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    user, _ = make_user()
    webhook = services.webhook_create(owner=user, url="https://hooks.example/h", events=["table.closed"])
    resolver["hooks.example"] = ["64:ff9b::a9fe:a9fe"]
    outbox.webhook_enqueue(event="table.closed", data={"table": 1}, user_ids=[user.pk], table_id=1)
    message = WebhookMessage.objects.get(webhook=webhook)
    services.webhook_message_deliver(message_id=message.pk)
    delivery = WebhookDelivery.objects.get(message=message)
    assert delivery.success is False and "refused" in delivery.error
    assert no_connections == []


def test_a_name_with_one_private_address_among_public_ones_is_refused(make_user, make_client, resolver):
    resolver["mixed.example"] = [PUBLIC_ADDRESS, "10.1.2.3"]
    _, token = make_user()
    assert_error(_create(make_client(token), "https://mixed.example/hook"), 400, "invalid_request")


def test_unknown_events_and_unknown_fields_are_refused(make_user, make_client, resolver):
    _, token = make_user()
    client = make_client(token)
    assert_error(_create(client, "https://hooks.example/h", ["game.started"]), 400, "invalid_request")
    response = client.post(
        "/api/v1/webhooks", {"url": "https://hooks.example/h", "events": ["game.over"], "x": 1}, format="json"
    )
    assert_error(response, 400, "invalid_request")
    assert not Webhook.objects.exists()


def test_the_address_is_checked_again_at_delivery(make_user, resolver, no_connections, settings):
    """Registered while the name was public; it now resolves to loopback: refused, nothing sent."""
    settings.WEBHOOK_ALLOW_PRIVATE = False
    user, _ = make_user()
    webhook = services.webhook_create(owner=user, url="https://hooks.example/h", events=["table.closed"])
    resolver["hooks.example"] = ["127.0.0.1"]
    outbox.webhook_enqueue(event="table.closed", data={"table": 1}, user_ids=[user.pk], table_id=1)
    message = WebhookMessage.objects.get(webhook=webhook)
    assert services.webhook_message_deliver(message_id=message.pk) is True
    delivery = WebhookDelivery.objects.get(message=message)
    assert delivery.success is False and delivery.status_code is None
    assert "refused" in delivery.error and "private" in delivery.error
    assert no_connections == []


def test_a_redirect_to_loopback_is_not_followed(make_user, monkeypatch, settings):
    """A "public" receiver answering 302 to a loopback URL: the attempt fails and the loopback URL gets
    nothing. 127.0.0.2 plays the public receiver: the address check lets it, and only it, through."""
    settings.WEBHOOK_ALLOW_PRIVATE = False
    real_check = sender.target_check

    def check(url):
        if urlsplit(url).hostname == "127.0.0.2":
            parts = urlsplit(url)
            return sender.Target("http", parts.hostname, parts.port, parts.path, "127.0.0.2")
        return real_check(url)

    monkeypatch.setattr(sender, "target_check", check)
    with Receiver() as inner, Receiver(host="127.0.0.2") as outer:
        outer.redirect_to = inner.url
        with pytest.raises(sender.UrlRefused):
            real_check(inner.url)  # the target of the redirect would be refused outright
        user, _ = make_user()
        webhook = services.webhook_create(owner=user, url=outer.url, events=["table.closed"])
        outbox.webhook_enqueue(event="table.closed", data={"table": 2}, user_ids=[user.pk], table_id=2)
        message = WebhookMessage.objects.get(webhook=webhook)
        services.webhook_message_deliver(message_id=message.pk)
        assert len(outer.received) == 1
        assert inner.received == []
    delivery = WebhookDelivery.objects.get(message=message)
    assert delivery.status_code == 302 and delivery.success is False
    assert "redirects are not followed" in delivery.error


@pytest.fixture
def private_ok(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.WEBHOOK_RETRY_SCHEDULE = [0, 0, 0]


def test_a_delivery_is_signed_per_standard_webhooks(make_user, private_ok):
    user, _ = make_user()
    with Receiver() as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        outbox.webhook_enqueue(
            event="table.closed", data={"table": 5, "reason": "finished"}, user_ids=[user.pk]
        )
        message = WebhookMessage.objects.get(webhook=webhook)
        services.webhook_message_deliver(message_id=message.pk)
        [request] = receiver.wait_for(1)
    payload = Verifier(webhook.secret).verify(request.body, request.headers)
    assert payload["type"] == "table.closed" and payload["data"] == {"table": 5, "reason": "finished"}
    assert request.headers["webhook-id"] == message.msg_id
    assert request.headers["Content-Type"] == "application/json"
    # Any other key fails: the signature is over this very body with this secret.
    with pytest.raises(Exception, match="signature"):
        Verifier(services.new_secret()).verify(request.body, request.headers)
    message.refresh_from_db()
    assert message.status == MessageStatus.DELIVERED and message.attempts == 1
    delivery = WebhookDelivery.objects.get(message=message)
    assert delivery.success and delivery.status_code == 200 and delivery.response_excerpt == "answer 200"


def test_only_webhooks_of_the_tables_people_and_staff_hear_of_it(make_user, private_ok):
    creator, _ = make_user()
    player, _ = make_user()
    stranger, _ = make_user()
    staff, _ = make_user(staff=True)
    url = "http://127.0.0.1:9/hook"
    hooks = {
        user.pk: services.webhook_create(owner=user, url=url, events=["table.closed"])
        for user in (creator, player, stranger, staff)
    }
    services.webhook_create(owner=player, url=url, events=["game.over"])  # another event
    written = outbox.webhook_enqueue(
        event="table.closed", data={"table": 9}, user_ids=[creator.pk, player.pk, None], table_id=9
    )
    assert written == 3
    got = set(WebhookMessage.objects.values_list("webhook_id", flat=True))
    assert got == {hooks[creator.pk].pk, hooks[player.pk].pk, hooks[staff.pk].pk}


def test_retries_keep_the_webhook_id_and_every_attempt_is_logged(make_user, private_ok):
    user, _ = make_user()
    with Receiver(statuses=[500, 503]) as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        outbox.webhook_enqueue(event="table.closed", data={"table": 3}, user_ids=[user.pk])
        message = WebhookMessage.objects.get(webhook=webhook)
        for _ in range(3):
            assert services.webhook_message_deliver(message_id=message.pk) is True
        assert services.webhook_message_deliver(message_id=message.pk) is False  # delivered: nothing to do
        requests = receiver.wait_for(3)
    assert len(requests) == 3
    assert {r.headers["webhook-id"] for r in requests} == {message.msg_id}
    assert len({r.body for r in requests}) == 1
    attempts = list(WebhookDelivery.objects.filter(message=message).order_by("attempt"))
    assert [(d.attempt, d.status_code, d.success) for d in attempts] == [
        (1, 500, False),
        (2, 503, False),
        (3, 200, True),
    ]
    assert all(d.duration_ms >= 0 for d in attempts) and attempts[0].response_excerpt == "answer 500"
    webhook.refresh_from_db()
    assert webhook.failures_in_row == 0


def test_a_message_is_given_up_after_the_schedule(make_user, private_ok, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [0]
    user, _ = make_user()
    with Receiver(statuses=[500, 500, 500]) as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        outbox.webhook_enqueue(event="table.closed", data={}, user_ids=[user.pk])
        message = WebhookMessage.objects.get(webhook=webhook)
        services.webhook_message_deliver(message_id=message.pk)
        services.webhook_message_deliver(message_id=message.pk)
        assert services.webhook_message_deliver(message_id=message.pk) is False
        assert len(receiver.received) == 2
    message.refresh_from_db()
    assert message.status == MessageStatus.FAILED and "gave up after 2 attempts" in message.failure_reason


def test_a_run_of_failures_disables_the_webhook_and_says_why(make_user, make_client, private_ok, settings):
    settings.WEBHOOK_DISABLE_AFTER = 3
    user, token = make_user()
    client = make_client(token)
    with Receiver(statuses=[500] * 10) as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        outbox.webhook_enqueue(event="table.closed", data={"n": 1}, user_ids=[user.pk])
        outbox.webhook_enqueue(event="table.closed", data={"n": 2}, user_ids=[user.pk])
        first, second = WebhookMessage.objects.filter(webhook=webhook).order_by("pk")
        services.webhook_message_deliver(message_id=first.pk)
        services.webhook_message_deliver(message_id=first.pk)
        services.webhook_message_deliver(message_id=second.pk)
        assert len(receiver.received) == 3
        # Disabled: nothing more is sent, and new events are not queued for it.
        assert services.webhook_message_deliver(message_id=first.pk) is False
        assert outbox.webhook_enqueue(event="table.closed", data={}, user_ids=[user.pk]) == 0
        assert len(receiver.received) == 3
    shown = client.get(f"/api/v1/webhooks/{webhook.pk}").json()
    assert shown["active"] is False
    assert "3 failed attempts in a row" in shown["disabled_reason"] and "HTTP 500" in shown["disabled_reason"]
    assert set(WebhookMessage.objects.values_list("status", flat=True)) == {MessageStatus.FAILED}


def test_deliveries_are_listed_and_one_can_be_redelivered_with_its_id(
    make_user, make_client, private_ok, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_RETRY_SCHEDULE = []
    user, token = make_user()
    client = make_client(token)
    with Receiver(statuses=[500]) as receiver:
        webhook = services.webhook_create(owner=user, url=receiver.url, events=["table.closed"])
        outbox.webhook_enqueue(event="table.closed", data={"table": 4}, user_ids=[user.pk])
        message = WebhookMessage.objects.get(webhook=webhook)
        services.webhook_message_deliver(message_id=message.pk)
        deliveries = client.get(f"/api/v1/webhooks/{webhook.pk}/deliveries").json()["deliveries"]
        assert [(d["attempt"], d["status_code"], d["success"]) for d in deliveries] == [(1, 500, False)]
        assert deliveries[0]["webhook_id"] == message.msg_id and deliveries[0]["message_status"] == "failed"
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = client.post(
                f"/api/v1/webhooks/{webhook.pk}/deliveries/{deliveries[0]['id']}/redeliver"
            )
        assert response.status_code == 202, response.json()
        assert response.json() == {"webhook_id": message.msg_id, "event": "table.closed", "status": "pending"}
        assert len(callbacks) == 1  # the delivery task, after commit
        services.webhook_message_deliver(message_id=message.pk)
        requests = receiver.wait_for(2)
    assert [r.headers["webhook-id"] for r in requests] == [message.msg_id] * 2
    message.refresh_from_db()
    assert message.status == MessageStatus.DELIVERED


def test_another_users_webhook_is_not_found(make_user, make_client, private_ok):
    owner, _ = make_user()
    _, token = make_user()
    client = make_client(token)
    webhook = services.webhook_create(owner=owner, url="http://127.0.0.1:9/h", events=["game.over"])
    assert_error(client.get(f"/api/v1/webhooks/{webhook.pk}"), 404, "not_found")
    assert_error(client.get(f"/api/v1/webhooks/{webhook.pk}/deliveries"), 404, "not_found")
    assert_error(client.delete(f"/api/v1/webhooks/{webhook.pk}"), 404, "not_found")
    assert_error(client.post(f"/api/v1/webhooks/{webhook.pk}/deliveries/1/redeliver"), 404, "not_found")
    assert Webhook.objects.filter(pk=webhook.pk).exists()


def test_the_owner_deletes_his_webhook(make_user, make_client, private_ok):
    owner, token = make_user()
    webhook = services.webhook_create(owner=owner, url="http://127.0.0.1:9/h", events=["game.over"])
    assert make_client(token).delete(f"/api/v1/webhooks/{webhook.pk}").status_code == 204
    assert not Webhook.objects.exists()


def test_a_rolled_back_change_leaves_no_message(make_user, private_ok):
    from django.db import transaction

    user, _ = make_user()
    services.webhook_create(owner=user, url="http://127.0.0.1:9/h", events=["table.closed"])
    with pytest.raises(RuntimeError), transaction.atomic():
        outbox.webhook_enqueue(event="table.closed", data={}, user_ids=[user.pk])
        raise RuntimeError("the change failed")
    assert not WebhookMessage.objects.exists()


def test_the_body_is_the_same_bytes_on_every_attempt(make_user, private_ok):
    user, _ = make_user()
    services.webhook_create(owner=user, url="http://127.0.0.1:9/h", events=["table.closed"])
    outbox.webhook_enqueue(event="table.closed", data={"名": "保皇"}, user_ids=[user.pk])
    body = json.loads(WebhookMessage.objects.get().body)
    assert (
        body["type"] == "table.closed" and body["data"] == {"名": "保皇"} and body["timestamp"].endswith("Z")
    )
