"""Random playouts for every preset (STYLE 11; docs/rules.md §1, §2, §5, docs/engine.md):

* a random legal playout from a random seed always ends (over or void) within a bound;
* cards are conserved (hands + played cards + travelling/aside cards = the preset's deck);
* only the seats in `to_act` have legal actions; the others are refused;
* every listed legal action is accepted; sampled illegal actions are refused and change nothing;
* scores sum to 0 where the preset is zero-sum (all but wuren), wuren scores are team scores;
* `replay(rules, setup, actions)` equals the live state; `from_json(to_json(s))` round-trips;
* the trustee policy (§5) always answers with a legal action and finishes every deal.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games import engine
from games.engine import Action, IllegalAction

from .helpers import ENDED, PASS, STAY, by_rank, expected_deck, ordered_value, play_multiset

DEALT: dict = {}
BOUND = 2500  # plays <= 216, passes <= 4 per play, plus selection and windows
ALL_CODES = [r + s for r in "3456789TJQKA2" for s in "SHCD"] + ["BJ", "SJ", "BJ*", "SJ*"]


def _multiset(name, counter):
    return by_rank(counter) if name == "weihai" else counter


def _check_conservation(name, state, played):
    view = engine.public_view(state)
    hands = Counter(c for s in range(5) for c in engine.seat_view(state, s)["hand"])
    deck = _multiset(name, expected_deck(name))
    held = _multiset(name, hands + played)
    created = held - deck
    assert not created, f"cards not in the deck or duplicated: {created}"
    hidden = sum((deck - held).values())
    pile = view.get("pile") or 0
    if state.phase in ("emperor_selection", "void"):
        allowed = (pile, pile + 1) if name == "laowang" else (pile,)
        assert hidden in allowed, (hidden, pile, state.phase)
    else:
        assert hidden == 0, f"{hidden} cards missing in phase {state.phase}"


def _check_only_prompted_seats_act(state):
    prompted = set(engine.to_act(state))
    for seat in range(5):
        legal = engine.legal_actions(state, seat)
        if seat in prompted:
            assert legal, f"seat {seat} is prompted but has no legal action"
        else:
            assert legal == [], f"seat {seat} is not prompted but has {legal}"
            for probe in (PASS, STAY, Action("accept")):
                before = engine.to_json(state)
                with pytest.raises(IllegalAction) as info:
                    engine.apply_action(state, seat, probe)
                assert info.value.code in ("not_your_turn", "wrong_phase", "game_over"), info.value.code
                assert engine.to_json(state) == before


def _illegal_probes(state, seat, rnd):
    """Actions that can never be legal for `seat` now."""
    view = engine.seat_view(state, seat)
    hand = Counter(view["hand"])
    probes = []
    absent = [c for c in ALL_CODES if c not in hand]
    if absent:
        probes.append(Action("play", (rnd.choice(absent),)))
    probes.append(Action("play", ("XX",)))
    if view["hand"]:
        code = rnd.choice(view["hand"])
        probes.append(Action("play", (code,) * (hand[code] + 1)))
    called = view.get("called_card")
    plain = [c for c in hand if not c.startswith(("BJ", "SJ")) and c[0] != "2" and c != called]
    naturals = sorted({c[0] for c in plain})
    if len(naturals) >= 2:
        a, b = rnd.sample(naturals, 2)
        ca = next(c for c in plain if c[0] == a)
        cb = next(c for c in plain if c[0] == b)
        probes.append(Action("play", (ca, cb)))
    if state.phase == "play" and view["table"] is None:
        probes.append(PASS)
    if state.phase != "play":
        probes.append(Action("play", (view["hand"][0],)) if view["hand"] else Action("play", ("9S",)))
    probes.append(Action("shout"))
    return probes


def _check_illegal(state, seat, rnd):
    for probe in _illegal_probes(state, seat, rnd):
        before = engine.to_json(state)
        with pytest.raises(IllegalAction):
            engine.apply_action(state, seat, probe)
        assert engine.to_json(state) == before, f"{probe} changed the state"


def _check_all_legal_accepted(state, seat, legal, rnd):
    sample = legal if len(legal) <= 12 else rnd.sample(legal, 12)
    before = engine.to_json(state)
    for action in sample:
        engine.apply_action(state, seat, action)  # must not raise
    assert engine.to_json(state) == before, "docs/engine.md: states are immutable values"


def _check_scores(name, rules, final):
    scores = final["scores"]
    assert len(scores) == 5 and all(isinstance(x, int) for x in scores)
    if final.get("void"):
        assert scores == [0] * 5
        return
    if getattr(rules, "name", name) != "wuren":
        assert sum(scores) == 0, scores
    else:
        # team scoring (§3.4): every member scores his team's score, the two teams opposite
        assert len(set(scores)) <= 2
        if len(set(scores)) == 2:
            a, b = set(scores)
            assert a == -b


def playout(name, seed, rnd, *, checks=True, check_every=7):
    rules = engine.preset(name)
    state = engine.new_deal(rules, seed=seed)
    setup = {"seed": seed}
    DEALT[(name, seed)] = [list(engine.seat_view(state, s)["hand"]) for s in range(5)]
    log = []
    played: Counter = Counter()
    step = 0
    while state.phase not in ENDED:
        step += 1
        assert step < BOUND, f"{name} seed {seed}: no end after {BOUND} actions"
        seats = engine.to_act(state)
        assert seats, f"nobody to act in phase {state.phase}"
        seat = rnd.choice(list(seats))
        legal = engine.legal_actions(state, seat)
        assert legal
        if checks and step % check_every == 1:
            _check_conservation(name, state, played)
            _check_only_prompted_seats_act(state)
            _check_illegal(state, seat, rnd)
            _check_all_legal_accepted(state, seat, legal, rnd)
            data = engine.to_json(state)
            assert engine.to_json(engine.from_json(data)) == data
            assert engine.legal_actions(engine.from_json(data), seat) == legal
        plays = [a for a in legal if a.type == "play"]
        if plays and rnd.random() < 0.6:
            action = rnd.choice(plays)
        else:
            action = rnd.choice(legal)
        state, events = engine.apply_action(state, seat, action)
        assert isinstance(events, list) and all(isinstance(e, dict) and "type" in e for e in events)
        log.append((seat, action))
        if action.type == "play":
            played.update(action.cards)
    return rules, setup, log, state, played


@pytest.mark.parametrize("name", engine.PRESETS)
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(min_value=0, max_value=2**62), rnd=st.randoms(use_true_random=False))
def test_random_legal_playout_ends_and_keeps_invariants(name, seed, rnd):
    rules, setup, log, state, played = playout(name, seed, rnd)
    assert state.phase in ENDED
    _check_conservation(name, state, played)
    for seat in range(5):
        assert engine.legal_actions(state, seat) == []
    assert engine.to_act(state) == ()
    final = engine.final_view(state)
    _check_scores(name, rules, final)
    assert final["seed"] == seed
    assert [(seat, a["type"], sorted(a["cards"]), a["card"]) for seat, a in final["actions"]] == \
        [(seat, a.type, sorted(a.cards), a.card) for seat, a in log]
    # hands as dealt (docs/client-guide.md §3): what each seat held at the start, plus the 2s a wuren seat
    # may have attached while declining automatically before anyone could act
    at_start = DEALT.pop((name, seed))
    for s_, start_hand in enumerate(at_start):
        extra = Counter(final["hands"][s_]) - Counter(start_hand)
        assert not (Counter(start_hand) - Counter(final["hands"][s_])), f"seat {s_}: hands as dealt"
        assert all(c[0] == "2" for c in extra.elements()) and (name == "wuren" or not extra), extra
    # §2.1: the next deal starts at this deal's emperor (pagat: one seat on; after a void: the same seat)
    if final["void"]:
        assert final["next_start_seat"] == 0
    elif name == "pagat":
        assert final["next_start_seat"] == 1
    else:
        assert final["next_start_seat"] == final["emperor"]
    replayed = engine.replay(rules, setup, log)
    assert engine.to_json(replayed) == engine.to_json(state)
    data = engine.to_json(state)
    assert engine.to_json(engine.from_json(data)) == data
    assert engine.final_view(engine.from_json(data)) == final


@pytest.mark.parametrize("name", engine.PRESETS)
def test_s5_trustee_policy_is_legal_and_finishes_every_deal(name):
    rules = engine.preset(name)
    for seed in (1, 2):
        state = engine.new_deal(rules, seed=seed)
        log = []
        for _ in range(BOUND):
            if state.phase in ENDED:
                break
            seat = engine.to_act(state)[0]
            action = engine.trustee_action(state, seat)
            legal = engine.legal_actions(state, seat)
            assert action.type in {a.type for a in legal}
            if action.type == "play":
                listed = [play_multiset(a.cards) for a in legal if a.type == "play"]
                assert play_multiset(action.cards) in listed
            assert action.type not in ("transfer", "solo"), "§5: trustee never transfers or solos"
            if state.phase in ("solo_window", "declaration_window", "kick_window"):
                assert action.type == "stay"
            if state.phase == "play":
                view = engine.seat_view(state, seat)
                if view["table"] is not None:
                    assert action.type == "pass", "§5: a follower on trustee passes"
                else:
                    singles = [a for a in legal if a.type == "play" and len(a.cards) == 1]

                    def worth(code, view=view, seat=seat):
                        # 老王 and 特王 rank above BJ (§3.5, §3.6)
                        if name == "laowang" and code == "SJ*":
                            return 18
                        if name == "campus" and code == view["called_card"] and seat != view["emperor"]:
                            return 18
                        return ordered_value(code)
                    if singles:
                        lowest = min(worth(a.cards[0]) for a in singles)
                        assert len(action.cards) == 1 and worth(action.cards[0]) == lowest, \
                            "§5: a leader on trustee plays his smallest legal single"
            state, _ = engine.apply_action(state, seat, action)
            log.append((seat, action))
        assert state.phase in ENDED
        assert engine.to_json(engine.replay(rules, {"seed": seed}, log)) == engine.to_json(state)


@pytest.mark.parametrize("name", engine.PRESETS)
def test_replay_matches_at_every_prefix(name):
    rnd = random.Random(5)
    rules, setup, log, state, _ = playout(name, 77, rnd, checks=False)
    rules = engine.preset(name)
    live = engine.new_deal(rules, seed=77)
    for i, (seat, action) in enumerate(log[:60]):
        live, _ = engine.apply_action(live, seat, action)
        assert engine.to_json(engine.replay(rules, setup, log[: i + 1])) == engine.to_json(live)


@pytest.mark.parametrize("name", ["lianzhong_simple", "lianzhong_classic", "pagat"])
def test_to_json_of_a_fresh_168_card_deal_is_small(name):
    for seed in (1, 2, 3):
        state = engine.new_deal(engine.preset(name), seed=seed)
        size = len(json.dumps(engine.to_json(state), separators=(",", ":")))
        assert size < 8192, size


def test_to_json_is_plain_json():
    state = engine.new_deal(engine.preset("wuren"), seed=3)
    data = engine.to_json(state)
    assert json.loads(json.dumps(data)) == data
