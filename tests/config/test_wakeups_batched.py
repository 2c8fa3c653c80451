"""infra/wakeups.py `batched`: the wake-ups of a block leave together, in order, when it ends;
a move's commit wakes its game's followers and the next player's feed in one round trip."""

import pytest

from infra import wakeups
from tests.api.playing import get_view, post_action


@pytest.fixture
def sent(settings, monkeypatch):
    """Every `_send` call (a list of (channel, message)), instead of Redis."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    calls: list[list[tuple[str, object]]] = []
    monkeypatch.setattr(wakeups, "_send", lambda messages, queued=(): calls.append(list(messages)))
    return calls


def test_outside_a_batch_each_wake_up_leaves_at_once(sent):
    wakeups.publish_table(table_id=1, seq=2)
    wakeups.publish_ticket(ticket_id=3)
    assert sent == [[("baohuang:0:table:1", "2")], [("baohuang:0:ticket:3", "3")]]


def test_a_batch_holds_its_wake_ups_until_it_ends_then_sends_them_in_order(sent):
    with wakeups.batched():
        wakeups.publish_table(table_id=1, seq=2)
        with wakeups.batched():  # nested: sent with the outermost
            wakeups.publish_user(user_id=7, seq=9)
        wakeups.publish(game_id=5, version=4)
        assert sent == []
    assert sent == [[("baohuang:0:table:1", "2"), ("baohuang:0:user:7", "9"), ("baohuang:0:game:5", "4")]]
    wakeups.publish_ticket(ticket_id=3)
    assert sent[-1] == [("baohuang:0:ticket:3", "3")]


def test_a_batch_that_ends_with_an_exception_still_sends_what_it_held(sent):
    with pytest.raises(RuntimeError), wakeups.batched():
        wakeups.publish_table(table_id=1, seq=2)
        raise RuntimeError("after the commit")
    assert sent == [[("baohuang:0:table:1", "2")]]


def test_an_empty_batch_sends_nothing(sent):
    with wakeups.batched():
        pass
    assert sent == []


def test_without_redis_nothing_is_held_or_sent(sent, settings):
    settings.REDIS_URL = None
    with wakeups.batched():
        wakeups.publish_table(table_id=1, seq=2)
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_a_move_wakes_its_game_and_the_next_players_feed_in_one_send(sent, make_table):
    setup = make_table(setups=[{"seed": 11}])
    game_id = setup["game"]
    view = get_view(setup["clients"][0], game_id)
    seat = view["to_act"][0]
    own = get_view(setup["clients"][seat], game_id)
    sent.clear()
    response = post_action(setup["clients"][seat], game_id, own["legal_actions"][0], version=own["version"])
    assert response.status_code == 200, response.json()
    assert len(sent) == 1, sent
    channels = [channel for channel, _ in sent[0]]
    assert f"baohuang:0:game:{game_id}" in channels
    assert any(channel.startswith("baohuang:0:user:") for channel in channels)


def test_what_a_batch_holds_can_be_sent_early_and_it_goes_on_holding(sent):
    with wakeups.batched():
        wakeups.publish_table(table_id=1, seq=2)
        wakeups.send_held()
        assert sent == [[("baohuang:0:table:1", "2")]]
        wakeups.publish_ticket(ticket_id=3)
        assert len(sent) == 1
    assert sent == [[("baohuang:0:table:1", "2")], [("baohuang:0:ticket:3", "3")]]
    wakeups.send_held()  # outside a batch: nothing held, nothing sent
    assert len(sent) == 2


def test_a_changes_wake_ups_leave_before_its_tasks_are_sent(sent, monkeypatch):
    """games/work.py: after a commit, the held wake-ups (the feeds' first) go out before the
    deadline and bot tasks are sent to the broker, which may be slow."""
    from django.utils import timezone

    from accounts.feed import FeedAppended
    from games import scheduling, work

    order: list[str] = []
    monkeypatch.setattr(
        wakeups, "_send", lambda messages, queued=(): order.append(f"wake-ups {len(messages)}")
    )
    monkeypatch.setattr(scheduling, "game_timer_schedule", lambda **kw: order.append("timer"))
    monkeypatch.setattr(scheduling, "game_bot_schedule", lambda **kw: order.append("bot"))
    change = work.Committed(
        game_id=5,
        version=8,
        running=True,
        deadline=None,
        autoplay_pending=False,
        bot_seats=(2,),
        rate=False,
        timer_at=timezone.now(),
        log_after=7,
        log_entries=({"seq": 8},),
    )
    fed = FeedAppended(seqs=[4], woken=[(3, [{"type": "your_turn", "seq": 4}])], pushable=[])
    with wakeups.batched():
        work._committed(change, [fed], [], None)
    assert order == ["wake-ups 2", "bot", "timer"]


def test_channels_are_named_after_the_redis_database():
    """Pub/sub channels are global to a Redis server: two deployments on databases of their own
    must not hear each other (their game ids coincide)."""
    assert wakeups.channel_prefix_for("redis://127.0.0.1:6379/3") == "baohuang:3:"
    assert wakeups.channel_prefix_for("redis://127.0.0.1:6379?db=5") == "baohuang:5:"
    assert wakeups.channel_prefix_for("redis://127.0.0.1:6379") == "baohuang:0:"
    assert wakeups.channel_prefix_for(None) == "baohuang:0:"


def test_a_deployment_on_another_database_publishes_on_other_channels(sent, settings):
    wakeups.publish(game_id=5, version=4)
    settings.REDIS_URL = "redis://127.0.0.1:6379/7"
    wakeups.publish(game_id=5, version=4)
    assert [channel for ((channel, _),) in sent] == ["baohuang:0:game:5", "baohuang:7:game:5"]
