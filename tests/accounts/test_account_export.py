"""`GET me/export` (docs/client-guide.md "Your data"): everything the server keeps about the player,
as JSON; tokens described, never their secrets."""

import random

import pytest

from accounts.models import AuthToken, Rating, RatingChange, Sanction, SanctionKind
from accounts.scopes import Scope
from accounts.services import personal_token_create
from games.models import GameStatus
from tests.api.playing import play_deal
from tests.conftest import assert_error

pytestmark = pytest.mark.django_db

SECTIONS = {
    "exported_at",
    "profile",
    "ratings",
    "rating_changes",
    "sanctions",
    "tokens",
    "webhooks",
    "games",
    "penalties",
    "reports_filed",
    "tickets",
    "devices",
    "notifications",
    "inbox",
    "tournaments",
}


def test_the_export_holds_the_players_games_ratings_reports_and_tokens(make_client, make_table, make_user):
    setup = make_table(private=True, deals=2)
    finished = play_deal(setup["clients"], setup["game"], random.Random(3))
    assert finished.status == GameStatus.OVER
    user, token, client = setup["users"][1], setup["tokens"][1], setup["clients"][1]
    other = setup["users"][4]
    staff, _ = make_user(staff=True)
    # The table is private, so unrated: the rating rows are written as a rated deal would.
    Rating.objects.create(user=user, preset="campus", mu=27, sigma=5, ordinal=12, deals=4)
    RatingChange.objects.create(
        game_id=finished.pk,
        user=user,
        preset="campus",
        mu_before=25,
        sigma_before=6,
        mu_after=27,
        sigma_after=5,
        result=1,
    )
    Sanction.objects.create(user=user, kind=SanctionKind.QUEUE_BAN, reason="stalling", moderator=staff)
    report = client.post(
        "/api/v1/reports", {"user": other.pk, "reason": "abuse", "text": "rude"}, format="json"
    )
    assert report.status_code == 201, report.json()
    client.post(f"/api/v1/tables/{setup['table']}/leave")  # a penalty: left a running deal
    personal = client.post("/api/v1/auth/tokens", {"name": "club", "scopes": ["read"]}, format="json").json()

    response = client.get("/api/v1/me/export")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == SECTIONS
    assert body["profile"]["id"] == user.pk and body["profile"]["username"] == user.username
    games = {row["game"]: row for row in body["games"]}
    assert set(games) == set(finished.table.games.values_list("pk", flat=True))  # private: his own
    assert games[finished.pk]["seat"] == 1 and games[finished.pk]["score"] == finished.final["scores"][1]
    assert games[finished.pk]["finished_at"] is not None
    assert [(r["preset"], r["deals"]) for r in body["ratings"]] == [("campus", 4)]
    assert [(c["game"], c["preset"], c["result"]) for c in body["rating_changes"]] == [
        (finished.pk, "campus", 1)
    ]
    assert [s["kind"] for s in body["sanctions"]] == ["queue_ban"]
    assert [(r["id"], r["user"], r["text"]) for r in body["reports_filed"]] == [
        (report.json()["id"], other.pk, "rude")
    ]
    assert [p["reason"] for p in body["penalties"]] == ["left"]
    tokens = {t["id"]: t for t in body["tokens"]}
    assert tokens[personal["id"]]["kind"] == "personal" and tokens[personal["id"]]["name"] == "club"
    assert {t["kind"] for t in body["tokens"]} == {"login", "personal"}
    # Never a secret, nor a hash of one.
    text = response.content.decode()
    for row in AuthToken.objects.filter(user=user):
        assert row.key_hash not in text
    assert token not in text and personal["token"] not in text


def test_another_players_data_is_not_in_the_export(make_client, make_user):
    user, token = make_user()
    other, other_token = make_user()
    make_client(other_token).post("/api/v1/reports", {"user": user.pk, "reason": "abuse"}, format="json")
    body = make_client(token).get("/api/v1/me/export").json()
    assert body["reports_filed"] == [] and body["games"] == [] and body["sanctions"] == []
    assert [t["id"] for t in body["tokens"]] == list(
        AuthToken.objects.filter(user=user).values_list("pk", flat=True)
    )


def test_a_banned_player_may_export(make_client, make_user):
    _, token = make_user(banned=True)
    assert make_client(token).get("/api/v1/me/export").status_code == 200


def test_the_export_needs_the_tokens_scope(make_client, make_user):
    user, _ = make_user()
    _, read_only = personal_token_create(
        user=user, name="r", scopes=[Scope.READ], expires_in_days=1, granted=frozenset(Scope.values)
    )
    body = assert_error(make_client(read_only).get("/api/v1/me/export"), 403, "missing_scope")
    assert body["extra"] == {"scope": "tokens"}
