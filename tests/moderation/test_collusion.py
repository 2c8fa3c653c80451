"""docs/rules.md §3.6 (laowang 串牌): exposing cards or collusion is a moderation action; before the table's
next deal the offender discards a 2 (else his highest non-joker) out of play, a private event to him
and a public one that a discard happened, audited and in his history."""

import random

import pytest

from accounts.models import ModerationAction
from games import engine
from games import services as game_services
from games.models import Game, GameStatus
from matchmaking import services as table_services
from matchmaking.models import Penalty, Seat, Table, TableStatus
from tests.conftest import assert_error, deal_end_steps
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


def _collusion(moderator, table_id, seat, reason="showed his hand to his partner"):
    return moderator.post(
        f"/api/v1/moderation/tables/{table_id}/seats/{seat}/collusion", {"reason": reason}, format="json"
    )


def _finish(game_id: int, users: list, rng: random.Random) -> None:
    """Play a deal to its end by random legal actions through the one service path."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.RUNNING:
            deal_end_steps()  # the table's steps, as the worker runs them after the commit
            return
        state = engine.from_json(game.state)
        seat = rng.choice(engine.to_act(state))
        action = rng.choice(engine.legal_actions(state, seat)).to_dict()
        game_services.game_action_apply(game_id=game_id, user=users[seat], action=action)


def _events(client, game_id):
    response = client.get(f"/api/v1/games/{game_id}/events", {"after": 0})
    assert response.status_code == 200
    return response.json()["events"]


def test_the_offender_discards_before_the_next_deal(make_table, make_user, make_client):
    setup = make_table(preset="laowang", deals=2)
    _, moderator = make_moderator(make_user, make_client)
    offender = setup["users"][2]
    recorded = _collusion(moderator, setup["table"], 2)
    assert recorded.status_code == 200, recorded.json()
    assert recorded.json() == {"user": offender.pk, "pending": 1}
    penalty = Penalty.objects.get(reason="collusion")
    assert (penalty.user, penalty.points, penalty.game_id, penalty.served_in) == (
        offender,
        0,
        setup["game"],
        None,
    )
    entry = ModerationAction.objects.get(action="collusion")
    assert (entry.subject_user_id, entry.source, entry.details) == (
        offender.pk,
        "api",
        {"seat": 2, "pending": 1},
    )
    # The running deal is untouched: the discard belongs to the next one.
    assert "discards" not in Game.objects.get(pk=setup["game"]).setup

    _finish(setup["game"], setup["users"], random.Random(3))
    following = Game.objects.exclude(pk=setup["game"]).get(table_id=setup["table"])
    assert following.setup["discards"] == [2]
    state = engine.from_json(following.state)
    [(seat, card)] = state.discards
    assert seat == 2 and card not in ("SJ", "BJ", "SJ*", "BJ*")
    # He alone learns the card; everyone learns that he discarded.
    own = _events(setup["clients"][2], following.pk)
    assert {"type": "penalty_discard_card", "seat": 2, "card": card} in [
        {k: e[k] for k in ("type", "seat", "card") if k in e} for e in own
    ]
    for other in (0, 1, 3, 4):
        seen = _events(setup["clients"][other], following.pk)
        assert [e["seat"] for e in seen if e["type"] == "penalty_discard"] == [2]
        assert not [e for e in seen if e["type"] == "penalty_discard_card"]
    penalty.refresh_from_db()
    assert penalty.served_in_id == following.pk
    history = setup["clients"][2].get(f"/api/v1/users/{offender.pk}/history").json()["penalties"]
    assert [(p["reason"], p["served_in"]) for p in history] == [("collusion", following.pk)]


def test_a_discard_made_before_a_void_deal_is_made_again_in_the_redeal(make_table, make_user, make_client):
    setup = make_table(preset="laowang", deals=3)
    _, moderator = make_moderator(make_user, make_client)
    _collusion(moderator, setup["table"], 4)
    table = Table.objects.get(pk=setup["table"])
    assert table_services.collusion_pending(table=table) == {setup["users"][4].pk: 1}
    penalty = Penalty.objects.get(reason="collusion")
    penalty.served_in = Game.objects.get(pk=setup["game"])
    penalty.save()
    assert table_services.collusion_pending(table=table) == {}
    Game.objects.filter(pk=setup["game"]).update(status=GameStatus.VOID)
    assert table_services.collusion_pending(table=table) == {setup["users"][4].pk: 1}


def test_refusals_change_nothing(make_table, make_user, make_client):
    _, moderator = make_moderator(make_user, make_client)
    weihai = make_table(preset="weihai")
    assert_error(_collusion(moderator, weihai["table"], 1), 400, "invalid_request")
    laowang = make_table(preset="laowang")
    assert_error(_collusion(moderator, laowang["table"], 1, reason=" "), 400, "invalid_request")
    assert_error(_collusion(laowang["clients"][0], laowang["table"], 1), 403, "permission_denied")
    assert_error(_collusion(moderator, 999_999, 0), 404, "not_found")
    Seat.objects.filter(table_id=laowang["table"], seat=3).delete()
    assert_error(_collusion(moderator, laowang["table"], 3), 404, "not_found")
    Table.objects.filter(pk=laowang["table"]).update(status=TableStatus.FINISHED)
    assert_error(_collusion(moderator, laowang["table"], 1), 409, "table_closed")
    assert not Penalty.objects.filter(reason="collusion").exists()
    assert not ModerationAction.objects.filter(action="collusion").exists()


def test_the_admin_records_collusion_with_a_reason(make_table, make_user, make_client, client):
    setup = make_table(preset="laowang")
    user, _ = make_moderator(make_user, make_client)
    client.force_login(user)
    row = Seat.objects.get(table_id=setup["table"], seat=0)
    form = {"action": "record_collusion", "_selected_action": [row.pk], "apply": "1", "reason": "signals"}
    assert client.post("/admin/matchmaking/seat/", form, follow=True).status_code == 200
    entry = ModerationAction.objects.get()
    assert (entry.action, entry.source, entry.reason) == ("collusion", "admin", "signals")
    assert Penalty.objects.get().reason == "collusion"
