"""The moderators' replay in the admin (docs/web-client.md "The moderators' replay"): every hand
from the deal and every action in order, the report's seats marked, passes that held a beating play
flagged; a running deal's cards only to those who may see hidden cards."""

import json
import random
import re

import pytest

from accounts.models import User
from matchmaking.models import Report
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
        reporter=setup["users"][0], user=setup["users"][3], game_id=setup["game"], reason="cheating"
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
    flagged = sum(step["beatable"] for step in data["steps"])
    assert html.count("⚠ held a play that beat the table") == flagged
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
