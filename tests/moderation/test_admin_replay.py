"""The moderators' replay in the admin (docs/web-client.md "The moderators' replay"): every hand
from the deal and every action in order, the report's seats marked, passes that held a beating play
flagged; a running deal's cards only to those who may see hidden cards."""

import json
import random
import re

import pytest

from accounts.models import User
from games.models import Game
from matchmaking.models import Report
from matchmaking.moderation.signs import game_signs
from tests.api.playing import play_deal
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def _replay_data(response) -> dict:
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', response.content.decode()
    )
    return json.loads(found.group(1))


def test_a_reported_deal_replays_with_its_seats_marked(make_table, make_user, make_client, client):
    setup = make_table(preset="pagat")
    play_deal(setup["clients"], setup["game"], random.Random(8))
    report = Report.objects.create(
        reporter=setup["users"][0],
        user=setup["users"][3],
        game_id=setup["game"],
        reason="cheating",
        text="seat 3 <kept> passing",
    )
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)

    page = client.get(f"/admin/matchmaking/report/{report.pk}/change/")
    assert f"/admin/games/game/{setup['game']}/replay/?report={report.pk}" in page.content.decode()
    replay = client.get(f"/admin/games/game/{setup['game']}/replay/", {"report": report.pk})
    assert replay.status_code == 200
    data = _replay_data(replay)
    final = setup["clients"][0].get(f"/api/v1/games/{setup['game']}/final").json()
    assert [sorted(hand) for hand in data["start"]["hands"]] == [sorted(hand) for hand in final["hands"]]
    html = replay.content.decode()
    assert html.count('<li data-step="') == len(final["actions"])
    assert json.loads(re.search(r'id="replay-marks" type="application/json">(.*?)<', html).group(1)) == {
        "reported": 3,
        "reporter": 0,
    }
    # The report's own words, escaped; each step a link to itself (admin_replay.js reads #step-n).
    assert "seat 3 &lt;kept&gt; passing" in html
    assert all(f'<a href="#step-{n}">' in html for n in range(1, len(final["actions"]) + 1))
    # The signs worth a look are marked on their steps (test_signs.py judges them).
    shown = game_signs(game=Game.objects.get(pk=setup["game"]))
    assert html.count('class="sign-note"') == len(shown)
    # The deal's own page links to it too.
    assert "game-replay-link" in client.get(f"/admin/games/game/{setup['game']}/change/").content.decode()


def test_a_running_deals_replay_is_only_for_those_who_may_see_hidden_cards(
    make_table, make_user, make_client, client
):
    setup = make_table(preset="pagat")
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    assert client.get(f"/admin/games/game/{setup['game']}/replay/").status_code == 403
    root = User.objects.create_superuser(username="root", password="x" * 12)
    client.force_login(root)
    assert client.get(f"/admin/games/game/{setup['game']}/replay/").status_code == 200


def test_a_players_deals_are_found_by_his_name(make_table, make_user, make_client, client):
    setup = make_table(preset="pagat")
    other = make_table(preset="pagat")
    moderator, _ = make_moderator(make_user, make_client)
    client.force_login(moderator)
    name = setup["users"][2].username
    page = client.get("/admin/games/game/", {"q": name}).content.decode()
    assert f'href="/admin/games/game/{setup["game"]}/change/' in page
    assert f'href="/admin/games/game/{other["game"]}/change/' not in page
    # His page links to his deals: a lookup the deal list offers (config/admin_site.py `link_lookups`).
    user_page = client.get(f"/admin/accounts/user/{setup['users'][2].pk}/change/").content.decode()
    link = f"/admin/games/game/?seat_players__user__id__exact={setup['users'][2].pk}"
    assert f'href="{link}"' in user_page
    linked = client.get(link)
    assert linked.status_code == 200
    assert f'href="/admin/games/game/{setup["game"]}/change/' in linked.content.decode()
    assert f'href="/admin/games/game/{other["game"]}/change/' not in linked.content.decode()
