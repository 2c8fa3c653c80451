"""docs/moderation.md reports: players file them, moderators read the queue and dismiss them."""

import pytest

from accounts.models import ModerationAction
from matchmaking.models import Report
from tests.conftest import assert_error
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def test_a_player_reports_another_and_the_queue_shows_it_with_the_game_one_click_away(
    make_table, make_user, make_client
):
    setup = make_table()
    reporter = setup["clients"][1]
    reported = setup["users"][3]
    response = reporter.post(
        "/api/v1/reports",
        {"user": reported.pk, "game": setup["game"], "reason": "collusion", "text": "passes to seat 1"},
        format="json",
    )
    assert response.status_code == 201
    created = response.json()
    assert set(created) == {"id", "status"} and created["status"] == "open"
    _, moderator = make_moderator(make_user, make_client)
    queue = moderator.get("/api/v1/moderation/reports?status=open")
    assert queue.status_code == 200
    [entry] = queue.json()["results"]
    assert entry["id"] == created["id"] and entry["user"] == reported.pk and entry["reason"] == "collusion"
    assert entry["reporter"] == setup["users"][1].pk and entry["text"] == "passes to seat 1"
    assert entry["links"]["game_events"] == f"/api/v1/games/{setup['game']}/events"
    assert moderator.get(entry["links"]["game_events"]).status_code == 200
    assert queue.json()["next"] is None
    assert moderator.get("/api/v1/moderation/reports?status=dismissed").json()["results"] == []


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"reason": "abuse"}, 400, "invalid_request"),  # himself (user filled in below)
        ({"user": 999_999, "reason": "abuse"}, 404, "not_found"),
        ({"reason": "rudeness"}, 400, "invalid_request"),
        ({"game": 999_999, "reason": "abuse"}, 404, "not_found"),
        ({"reason": "abuse", "text": "x" * 2001}, 400, "invalid_request"),
        ({"reason": "abuse", "status": "dismissed"}, 400, "invalid_request"),
    ],
)
def test_bad_reports_are_refused_and_change_nothing(make_user, make_client, payload, status, code):
    reporter, token = make_user()
    other, _ = make_user()
    body = dict(payload)
    if payload is not None and "user" not in payload:
        body["user"] = reporter.pk if payload == {"reason": "abuse"} else other.pk
    assert_error(make_client(token).post("/api/v1/reports", body, format="json"), status, code)
    assert not Report.objects.exists()


def test_reports_per_player_are_rate_limited(make_user, make_client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "reports": "2/hour"},
    }
    other, _ = make_user()
    _, token = make_user()
    client = make_client(token)
    answers = [
        client.post("/api/v1/reports", {"user": other.pk, "reason": "other"}, format="json").status_code
        for _ in range(3)
    ]
    assert answers == [201, 201, 429] and Report.objects.count() == 2


def test_dismissing_a_report_records_who_and_why(make_user, make_client):
    mod_user, moderator = make_moderator(make_user, make_client)
    other, _ = make_user()
    _, token = make_user()
    report_id = (
        make_client(token)
        .post("/api/v1/reports", {"user": other.pk, "reason": "stalling"}, format="json")
        .json()["id"]
    )
    response = moderator.post(
        f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "normal pace"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (
        body["status"] == "dismissed" and body["handled_by"] == mod_user.pk and body["note"] == "normal pace"
    )
    entry = ModerationAction.objects.get()
    assert (entry.action, entry.target_type, entry.target_id, entry.subject_user_id, entry.reason) == (
        "dismiss",
        "report",
        report_id,
        other.pk,
        "normal pace",
    )
    again = moderator.post(f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "x"}, format="json")
    assert_error(again, 400, "invalid_request")
    assert_error(
        moderator.post("/api/v1/moderation/reports/999999/dismiss", {"note": "x"}, format="json"),
        404,
        "not_found",
    )
    assert ModerationAction.objects.count() == 1


def test_players_cannot_read_or_dismiss_reports(make_user, make_client):
    other, _ = make_user()
    _, token = make_user()
    player = make_client(token)
    report_id = player.post("/api/v1/reports", {"user": other.pk, "reason": "abuse"}, format="json").json()[
        "id"
    ]
    assert_error(player.get("/api/v1/moderation/reports"), 403, "permission_denied")
    assert_error(
        player.post(f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "x"}, format="json"),
        403,
        "permission_denied",
    )
    assert Report.objects.get().status == "open"


def test_the_queue_pages_by_cursor(make_user, make_client):
    from matchmaking.moderation.apis import PAGE_SIZE

    _, moderator = make_moderator(make_user, make_client)
    reporter, _ = make_user()
    other, _ = make_user()
    Report.objects.bulk_create(
        [Report(reporter=reporter, user=other, reason="other") for _ in range(PAGE_SIZE + 3)]
    )
    first = moderator.get("/api/v1/moderation/reports").json()
    assert len(first["results"]) == PAGE_SIZE and first["next"] is not None
    second = moderator.get(f"/api/v1/moderation/reports?cursor={first['next']}").json()
    assert len(second["results"]) == 3 and second["next"] is None
    ids = [r["id"] for r in first["results"] + second["results"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == PAGE_SIZE + 3


def _feed(client) -> list[dict]:
    return client.get("/api/v1/me/events?after=0").json()["events"]


def test_the_reporter_learns_that_his_report_was_dismissed_and_nobody_else_does(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    other, other_token = make_user()
    _, token = make_user()
    reporter = make_client(token)
    report_id = reporter.post("/api/v1/reports", {"user": other.pk, "reason": "abuse"}, format="json").json()[
        "id"
    ]
    assert _feed(reporter) == []

    moderator.post(f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "banter"}, format="json")
    assert _feed(reporter) == [
        {"type": "report_outcome", "seq": 1, "report": report_id, "outcome": "no_action"}
    ]
    assert _feed(make_client(other_token)) == []  # the reported player is not told of a dismissed report

    refused = moderator.post(f"/api/v1/moderation/reports/{report_id}/dismiss", {"note": "x"}, format="json")
    assert_error(refused, 400, "invalid_request")
    assert len(_feed(reporter)) == 1  # a refused action tells nobody anything


def test_the_reporter_learns_that_action_was_taken_but_not_which(make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    target, target_token = make_user()
    _, token = make_user()
    reporter = make_client(token)
    report_id = reporter.post(
        "/api/v1/reports", {"user": target.pk, "reason": "cheating"}, format="json"
    ).json()["id"]
    sanction = {"user": target.pk, "kind": "queue_ban", "reason": "bot play", "report": report_id}
    assert moderator.post("/api/v1/moderation/sanctions", sanction, format="json").status_code == 201

    # Whether a moderator acted, never how: the sanction's kind and end are the sanctioned player's.
    assert _feed(reporter) == [
        {"type": "report_outcome", "seq": 1, "report": report_id, "outcome": "action_taken"}
    ]
    assert [entry["type"] for entry in _feed(make_client(target_token))] == ["sanction"]
