"""Issue 37 item 1: the admin answers only the lookups its own filters, date hierarchy and links make
(config/admin_site.py). Django's default accepts any lookup on a model's own fields, JSON keys
included, so `?setup__seed__startswith=<prefix><digit>` on the deal list answered yes or no about a
running deal's seed, digit by digit. Every other lookup is refused with Django's 400, whatever the
hidden value, so the answer to a true guess and to a false one are the same bytes."""

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts.models import User
from games.models import Game
from matchmaking.models import Table
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db

# Columns a moderator without games.view_hidden_cards must not learn anything about (cards, seeds,
# private events, stored answers), and secrets nobody reads in the admin.
HIDDEN = {
    "games.game": ("setup", "state", "final"),
    "games.event": ("data", "action"),
    "games.idempotencykey": ("body", "request_hash"),
    "matchmaking.table": ("setups",),
    "accounts.user": ("password",),
    "accounts.authtoken": ("key_hash",),
    "accounts.webhook": ("secret",),
    "oauth2_provider.accesstoken": ("token",),
    "oauth2_provider.refreshtoken": ("token",),
    "oauth2_provider.grant": ("code",),
    "oauth2_provider.application": ("client_secret",),
    # Push device tokens and subscription keys (accounts/push/admin.py).
    "push_notifications.apnsdevice": ("registration_id",),
    "push_notifications.gcmdevice": ("registration_id",),
    "push_notifications.wnsdevice": ("registration_id",),
    "push_notifications.webpushdevice": ("registration_id", "p256dh", "auth"),
}
LOOKUPS = ("", "__exact", "__startswith", "__icontains", "__isnull", "__regex", "__gt")
# Key transforms into the JSON columns: the questions the probe asked.
KEY_TRANSFORMS = {
    "games.game": (
        "setup__seed__startswith",
        "state__hands__1__icontains",
        "state__guard",
        "state__guard__isnull",
        "final__isnull",
    ),
    "games.event": ("data__private_to__isnull", "data__cards__icontains", "action__1__type"),
    "matchmaking.table": ("setups__0__seed", "setups__0__seed__startswith", "setups__isnull"),
}


def _label(model) -> str:
    return model._meta.label_lower


def _registered():
    """Every model admin of the site, found through the public registry API."""
    for model in apps.get_models():
        if admin.site.is_registered(model):
            yield model, admin.site.get_model_admin(model)


def _changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def _filtered_fields(model_admin) -> set[str]:
    """Fields the admin itself filters or dates by (shown in its list, not hidden), and its own
    filters' parameters."""
    fields = {model_admin.date_hierarchy} - {None}
    for item in model_admin.list_filter:
        if isinstance(item, type):
            fields.add(item.parameter_name)
        elif isinstance(item, str):
            fields.add(item.split("__")[0])
        elif isinstance(item, (list, tuple)):
            fields.add(item[0].split("__")[0])
    return fields


def _candidate_lookups(model, model_admin) -> list[str]:
    """Lookups an attacker would try: on every own field the admin does not filter by (on a hidden one
    every kind of lookup),
    the key transforms above, and one hop through a relation into a model's hidden columns."""
    filtered = _filtered_fields(model_admin)
    hidden = HIDDEN.get(_label(model), ())
    found = list(KEY_TRANSFORMS.get(_label(model), ()))
    for field in model._meta.get_fields():
        if field.concrete and not field.many_to_many and field.name not in filtered:
            lookups = LOOKUPS if field.name in hidden else LOOKUPS[:3]
            found += [f"{field.name}{lookup}" for lookup in lookups]
        if field.is_relation and field.related_model is not None:
            for hidden in HIDDEN.get(_label(field.related_model), ()):
                found.append(f"{field.name}__{hidden}__icontains")
    return found


@pytest.fixture
def viewer(make_user):
    """Staff who may view every model but not hidden cards: every admin's list answers him."""
    user, _ = make_user(staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    user.user_permissions.remove(Permission.objects.get(codename="view_hidden_cards"))
    return User.objects.get(pk=user.pk)


@pytest.fixture
def running(make_table):
    setup = make_table()
    return Game.objects.get(pk=setup["game"])


def test_every_admin_refuses_every_lookup_it_does_not_offer(client, viewer, running):
    client.force_login(viewer)
    unexpected = []
    for model, model_admin in _registered():
        url = _changelist(model)
        assert client.get(url).status_code == 200, url
        for lookup in _candidate_lookups(model, model_admin):
            response = client.get(url, {lookup: "1"})
            if response.status_code != 400:
                unexpected.append((url, lookup, response.status_code))
    assert unexpected == []


def test_no_filter_search_column_or_order_of_any_admin_reaches_a_hidden_field(rf, viewer):
    request = rf.get("/admin/")
    request.user = viewer
    for model, model_admin in _registered():
        hidden = set(HIDDEN.get(_label(model), ()))
        names = [
            *(
                item if isinstance(item, str) else item[0]
                for item in model_admin.get_list_filter(request)
                if not isinstance(item, type)
            ),
            *(name.lstrip("=^@") for name in model_admin.get_search_fields(request)),
            *(name for name in model_admin.get_list_display(request) if isinstance(name, str)),
            model_admin.date_hierarchy or "",
        ]
        assert not {name.split("__")[0] for name in names} & hidden, (model, names)
        for name in names:  # one hop into another model's hidden columns
            parts = name.split("__")
            if len(parts) > 1 and parts[0] in {f.name for f in model._meta.get_fields()}:
                related = model._meta.get_field(parts[0]).related_model
                if related is not None:
                    assert parts[1] not in HIDDEN.get(_label(related), ()), (model, name)


def test_a_moderator_learns_nothing_of_a_running_deals_seed_hands_or_guard(
    client, make_user, make_client, running
):
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    seed = str(running.setup["seed"])
    card = running.state["hands"][1][0]
    for lookup, true_guess, false_guess in (
        ("setup__seed__startswith", seed[:3], "x"),
        ("setup__seed", seed, "1"),
        ("state__hands__1__icontains", card, "no such card"),
        ("state__guard__isnull", "False", "True"),
        ("table__setups__isnull", "True", "False"),
        ("events__data__private_to__isnull", "False", "True"),
    ):
        right = client.get("/admin/games/game/", {"id": running.pk, lookup: true_guess})
        wrong = client.get("/admin/games/game/", {"id": running.pk, lookup: false_guess})
        assert (right.status_code, wrong.status_code) == (400, 400), lookup
        assert right.content == wrong.content, lookup


def test_private_events_and_fixed_deals_answer_400_to_a_moderator(client, make_user, make_client, make_table):
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    setup = make_table()
    table = Table.objects.get(pk=setup["table"])
    for url, query in (
        ("/admin/games/event/", {"game__id__exact": setup["game"], "data__private_to__isnull": "False"}),
        ("/admin/games/event/", {"data__private_to__contains": 1}),
        ("/admin/games/event/", {"data__icontains": "BJ"}),
        ("/admin/matchmaking/table/", {"id": table.pk, "setups__isnull": "False"}),
        ("/admin/matchmaking/table/", {"setups__0__seed__startswith": "1"}),
        ("/admin/matchmaking/seat/", {"table__setups__icontains": "1"}),
        ("/admin/accounts/user/", {"password__startswith": "pbkdf2"}),
    ):
        assert client.get(url, query).status_code == 400, (url, query)


def test_the_admins_own_filters_date_links_and_links_still_work(client, running):
    root = User.objects.create_superuser(username="root", password="correct-horse-9")
    client.force_login(root)
    checked = 0
    for model, _ in _registered():
        url = _changelist(model)
        page = client.get(url)
        assert page.status_code == 200, url
        for href in set(re.findall(r'href="(\?[^"]*)"', page.content.decode())):
            query = dict(parse_qsl(urlsplit(unescape(href)).query))
            response = client.get(url, query)
            assert response.status_code == 200, (url, query, response.status_code)
            checked += 1
    assert checked > 50
    # Links the project's own pages make.
    assert client.get("/admin/games/event/", {"game__id__exact": running.pk}).status_code == 200
    assert client.get("/admin/matchmaking/report/", {"status__exact": "open"}).status_code == 200
    assert client.get("/admin/games/game/", {"q": running.pk}).status_code == 200


def test_a_fixed_deal_stays_hidden_on_every_page_a_moderator_reaches(
    client, make_user, make_client, make_table
):
    seed = 8675309123
    setup = make_table(setups=[{"seed": seed}])
    game = Game.objects.get(pk=setup["game"])
    assert game.setup["seed"] == seed
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    table, deal = setup["table"], setup["game"]
    for url in (
        f"/admin/matchmaking/table/{table}/change/",
        f"/admin/matchmaking/table/{table}/history/",
        "/admin/matchmaking/table/",
        f"/admin/games/game/{deal}/change/",
        f"/admin/games/game/{deal}/history/",
        f"/admin/games/event/?game__id__exact={deal}",
        f"/admin/autocomplete/?app_label=games&model_name=event&field_name=game&term={seed}",
    ):
        response = client.get(url)
        assert str(seed).encode() not in response.content, url
    for lookup, true_guess, false_guess in (
        ("setups__0__seed", seed, seed + 1),
        ("setups__icontains", str(seed)[:4], "9999"),
        ("games__setup__seed__startswith", str(seed)[:4], "9999"),
    ):
        right = client.get("/admin/matchmaking/table/", {lookup: true_guess})
        wrong = client.get("/admin/matchmaking/table/", {lookup: false_guess})
        assert (right.status_code, wrong.status_code) == (400, 400) and right.content == wrong.content, lookup
