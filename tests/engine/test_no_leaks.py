"""docs/rules.md §1 Visibility and §2.5 windows: a seat's view depends only on what that seat may know.

Two deals that differ only in what a viewer may not know (cards swapped between two other seats,
who holds the guard card, a hidden solo against a hidden guard) must give that viewer identical
`seat_view`s, and identical `public_view`s, at the start and after the same public actions.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games import engine

from .helpers import ENDED, PRESET_NAMES

MARKED = ("BJ*", "SJ*")
PHASES_SEEN: set = set()
ORDER = ("accept", "call", "stay", "play", "pass", "decline")


def _base(name, seed):
    """The hands of a seeded deal at its start, ready to pass to new_deal(hands=...); seeds whose
    first candidate already declined automatically (a travelling pile) are skipped."""
    rules = engine.preset(name)
    while True:
        state = engine.new_deal(rules, seed=seed)
        view = engine.public_view(state)
        own_pile = 1 if name in ("wuren", "laowang") else 0
        if state.phase == "emperor_selection" and (view.get("pile") or 0) <= own_pile:
            break
        seed += 1000
    cand = view["candidate"]
    hands = [list(engine.seat_view(state, s)["hand"]) for s in range(5)]
    if name == "wuren":
        for h in hands:
            if "BJ*" in h:
                h.remove("BJ*")
    return rules, hands, cand, state


def _new(rules, hands, cand, seed):
    kwargs = {"hands": [list(h) for h in hands], "seed": seed}
    if rules.name in ("wuren", "laowang"):
        kwargs["candidate"] = cand
    return engine.new_deal(rules, **kwargs)


def _key(action):
    return (action.type, tuple(action.cards), action.card)


def _common_action(state_a, state_b, seat, rnd=None):
    a = {_key(x): x for x in engine.legal_actions(state_a, seat)}
    b = {_key(x): x for x in engine.legal_actions(state_b, seat)}
    common = sorted(set(a) & set(b), key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99, k))
    if not common:
        return None
    return a[rnd.choice(common)] if rnd is not None else a[common[0]]


def _views(state, viewer):
    seat = engine.seat_view(state, viewer)
    public = engine.public_view(state)
    return seat, public


def assert_same_views(state_a, state_b, viewer, max_steps=80, rnd=None, ignore_pile_cards=False, stop_at=()):
    """Drive both deals with the same actions and compare the viewer's views after each one."""
    compared = 0
    for _ in range(max_steps):
        if state_a.phase != state_b.phase or state_a.phase in ENDED:
            break
        PHASES_SEEN.add(state_a.phase)
        if state_a.phase == "emperor_selection" and engine.public_view(state_a)["candidate"] in stop_at:
            break  # wuren/campus: whether a swapped seat can accept is a public consequence (§3.4, §3.5)
        va, vb = _views(state_a, viewer), _views(state_b, viewer)
        if ignore_pile_cards:
            # a candidate's own view of the travelling pile (see findings: which seats may see 贴2)
            va[0].pop("pile_cards", None)
            vb[0].pop("pile_cards", None)
        assert va[0] == vb[0], f"seat {viewer} view differs in phase {state_a.phase}: {_diff(va[0], vb[0])}"
        assert va[1] == vb[1], f"public view differs in phase {state_a.phase}: {_diff(va[1], vb[1])}"
        compared += 1
        seats_a, seats_b = engine.to_act(state_a), engine.to_act(state_b)
        assert seats_a == seats_b, "who is prompted is public (§2.5)"
        for seat in ([rnd.choice(list(seats_a))] if rnd is not None else seats_a):
            action = _common_action(state_a, state_b, seat, rnd)
            if action is None:
                return compared
            if stop_at and action.type == "decline":
                return compared  # the role may reach a swapped seat (possibly through automatic declines)
            state_a, events_a = engine.apply_action(state_a, seat, action)
            state_b, events_b = engine.apply_action(state_b, seat, action)
            if state_a.phase not in ENDED and state_b.phase not in ENDED:
                # cards handed to the viewer himself (贴2, tribute) may differ: compare their types only
                assert [e["type"] for e in _visible(events_a, viewer)] == \
                    [e["type"] for e in _visible(events_b, viewer)], \
                    f"events seen by seat {viewer} differ after {action} by {seat}"
                assert _visible(events_a, None) == _visible(events_b, None), "public events differ"
            break
    return compared


def _visible(events, viewer):
    return [e for e in events if "private_to" not in e or (viewer is not None and viewer in e["private_to"])]


def _diff(a, b):
    return {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def _swap(hands, a, b, rnd, k=3, keep=(), same_rank=False):
    """Swap k cards between seats a and b. Never 3s (campus buys them publicly), 2s or aces (贴2
    attachments end up in the acceptor's hand, who may be the viewer), or marked cards."""
    hands = [list(h) for h in hands]
    pa = [c for c in hands[a] if c not in MARKED and c not in keep and c[0] not in "32A"]
    pb = [c for c in hands[b] if c not in MARKED and c not in keep and c[0] not in "32A"]
    if same_rank:
        # campus: who may accept depends on which ranks every other seat holds (§3.5), a public
        # consequence of hidden cards; swapping suits within a rank keeps it unchanged
        pairs = [(x, y) for x in sorted(set(pa)) for y in sorted(set(pb)) if x[0] == y[0] and x != y
                 and not x.startswith(("BJ", "SJ"))]
        rnd.shuffle(pairs)
        used_a, used_b = Counter(), Counter()
        for x, y in pairs[:k]:
            if used_a[x] < hands[a].count(x) and used_b[y] < hands[b].count(y):
                used_a[x] += 1
                used_b[y] += 1
        ga, gb = list(used_a.elements()), list(used_b.elements())
        for c in ga:
            hands[a].remove(c)
            hands[b].append(c)
        for c in gb:
            hands[b].remove(c)
            hands[a].append(c)
        return hands
    k = min(k, len(pa), len(pb))
    ga, gb = rnd.sample(pa, k), rnd.sample(pb, k)
    for c in ga:
        hands[a].remove(c)
        hands[b].append(c)
    for c in gb:
        hands[b].remove(c)
        hands[a].append(c)
    return hands


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_s1_swapping_cards_between_two_other_seats_changes_nothing_a_viewer_sees(name):
    rnd = random.Random(name)
    for seed in (3, 4, 5, 6):
        rules, hands, cand, _ = _base(name, seed)
        for viewer in range(5):
            others = [s for s in range(5) if s not in (viewer, cand)]
            a, b = rnd.sample(others, 2)
            swapped = _swap(hands, a, b, rnd)
            state_a = _new(rules, hands, cand, seed)
            state_b = _new(rules, swapped, cand, seed)
            PHASES_SEEN.clear()
            assert assert_same_views(state_a, state_b, viewer) >= 1
            assert "play" in PHASES_SEEN, f"the comparison never reached play: {PHASES_SEEN}"


def _holder(hands, code):
    return next(s for s in range(5) if code in hands[s])


@pytest.mark.parametrize("name", ["weihai", "lianzhong_simple", "pagat", "laowang"])
def test_s1_who_holds_the_guard_card_is_hidden(name):
    for seed in range(1, 40):
        rules, hands, cand, _ = _base(name, seed)
        g = _holder(hands, "SJ*")
        if g != cand:
            break
    for viewer in range(5):
        if viewer == g:
            continue
        x = next(s for s in range(5) if s not in (viewer, g, cand))  # the emperor may be the viewer
        other = [list(h) for h in hands]
        plain = next(c for c in other[x] if c not in MARKED)
        other[g].remove("SJ*")
        other[g].append(plain)
        other[x].remove(plain)
        other[x].append("SJ*")
        state_a = _new(rules, hands, cand, seed)
        state_b = _new(rules, other, cand, seed)
        PHASES_SEEN.clear()
        assert assert_same_views(state_a, state_b, viewer) >= 2
        assert "play" in PHASES_SEEN, f"the comparison never reached play: {PHASES_SEEN}"


@pytest.mark.parametrize("name", ["weihai", "lianzhong_simple", "pagat", "laowang"])
def test_s1_a_hidden_solo_looks_like_a_hidden_guard(name):
    rules, hands, cand, _ = _base(name, 5)
    g = _holder(hands, "SJ*")
    solo = [list(h) for h in hands]
    if g != cand:  # give SJ* to the candidate in exchange for a plain card
        plain = next(c for c in solo[cand] if c not in MARKED)
        solo[cand].remove(plain)
        solo[cand].append("SJ*")
        solo[g].remove("SJ*")
        solo[g].append(plain)
    for viewer in range(5):
        if viewer == cand:
            continue
        x = next(s for s in range(5) if s not in (viewer, cand))
        guard = [list(h) for h in solo]
        plain = next(c for c in guard[x] if c not in MARKED)
        guard[cand].remove("SJ*")
        guard[cand].append(plain)
        guard[x].remove(plain)
        guard[x].append("SJ*")
        state_a = _new(rules, solo, cand, 5)
        state_b = _new(rules, guard, cand, 5)
        PHASES_SEEN.clear()
        assert assert_same_views(state_a, state_b, viewer) >= 2
        assert "play" in PHASES_SEEN, f"the comparison never reached play: {PHASES_SEEN}"


@pytest.mark.parametrize("name", ["lianzhong_classic", "wuren", "campus"])
def test_s3_who_holds_the_called_card_is_hidden(name):
    for seed in range(1, 60):
        rules, hands, cand, state = _base(name, seed)
        if state.phase != "emperor_selection" or engine.to_act(state) != (cand,):
            continue
        if "accept" not in {a.type for a in engine.legal_actions(state, cand)}:
            continue
        called_state, _ = engine.apply_action(state, cand, engine.Action("accept"))
        calls = [a for a in engine.legal_actions(called_state, cand) if a.type == "call"]
        for call in calls:
            card = call.card
            if sum(h.count(card) for h in hands) != 4 or hands[cand].count(card) != 3:
                continue
            g = _holder([h if s != cand else [] for s, h in enumerate(hands)], card)
            # the seat that gets the guard card gives back a card of the same rank (campus: every
            # other seat must keep holding the rank for the call to stay possible)
            for x in range(5):
                if x in (cand, g):
                    continue
                same = [c for c in hands[x] if c[0] == card[0] and c != card]
                if not same:
                    continue
                other = [list(h) for h in hands]
                other[g].remove(card)
                other[g].append(same[0])
                other[x].remove(same[0])
                other[x].append(card)
                for viewer in range(5):
                    if viewer in (g, x):
                        continue  # the emperor does not know who holds the fourth copy either
                    state_a = _new(rules, hands, cand, seed)
                    state_b = _new(rules, other, cand, seed)
                    PHASES_SEEN.clear()
                    assert assert_same_views(state_a, state_b, viewer) >= 3
                    assert "play" in PHASES_SEEN, f"the comparison never reached play: {PHASES_SEEN}"
                return
    pytest.fail("no seed gave a callable card with a fourth copy elsewhere")


def _find_lists(obj, found):
    if isinstance(obj, dict):
        for v in obj.values():
            _find_lists(v, found)
    elif isinstance(obj, (list, tuple)):
        found.append(list(obj))
        for v in obj:
            _find_lists(v, found)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_s1_views_never_carry_other_hands_or_the_seed(name):
    rnd = random.Random(1)
    rules = engine.preset(name)
    seed = 987654321
    state = engine.new_deal(rules, seed=seed)
    for _ in range(400):
        if state.phase in ENDED:
            break
        hands = [list(engine.seat_view(state, s)["hand"]) for s in range(5)]
        public = engine.public_view(state)
        for view, viewer in [(public, None)] + [(engine.seat_view(state, s), s) for s in range(5)]:
            assert "hands" not in view and "seed" not in view and "scores" not in view
            assert seed not in _all_values(view)
            lists = []
            _find_lists(view, lists)
            for w in range(5):
                if w != viewer and len(hands[w]) >= 2:
                    assert hands[w] not in lists, f"seat {w}'s hand appears in the view of {viewer}"
        seat = rnd.choice(list(engine.to_act(state)))
        state, events = engine.apply_action(state, seat, rnd.choice(engine.legal_actions(state, seat)))
        for event in events:
            assert "hands" not in event and "seed" not in event


def _all_values(obj):
    out = []
    if isinstance(obj, dict):
        for v in obj.values():
            out += _all_values(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += _all_values(v)
    else:
        out.append(obj)
    return out


def test_s1_final_view_only_once_the_deal_is_over():
    state = engine.new_deal(engine.preset("pagat"), seed=1)
    with pytest.raises(Exception):  # noqa: B017 - the contract names no type, only "only once over"
        engine.final_view(state)


def test_s25_window_answers_are_private_until_the_window_closes():
    from .helpers import ACCEPT, REBEL, STAY, act, deal
    hands = ["BJ* AH KH", "SJ* QH", "9H 8H", "7H TH", "7S JS"]
    state = act(deal("weihai", hands), 0, ACCEPT)
    state = _answer_all(state, STAY)
    assert state.phase == "declaration_window"
    before = engine.public_view(state)
    state2, events = engine.apply_action(state, 2, REBEL)
    assert engine.public_view(state2) == before, "the public view must not show who answered"
    for s in (0, 1, 3, 4):
        assert engine.seat_view(state2, s) == engine.seat_view(state, s)
    for event in events:
        assert event.get("private_to") == [2], event
    state3, _ = engine.apply_action(state, 3, STAY)
    assert engine.public_view(state3) == before


def _answer_all(state, action):
    for seat in list(engine.to_act(state)):
        state, _ = engine.apply_action(state, seat, action)
    return state


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(0, 10**6), rnd=st.randoms(use_true_random=False))
def test_s1_random_swaps_and_random_public_actions_leak_nothing(name, seed, rnd):
    rules, hands, cand, _ = _base(name, seed)
    viewer = rnd.randrange(5)
    others = [s for s in range(5) if s not in (viewer, cand)]
    a, b = rnd.sample(others, 2)
    swapped = _swap(hands, a, b, rnd, k=rnd.randint(1, 6), same_rank=name == "campus")
    state_a = _new(rules, hands, cand, seed)
    state_b = _new(rules, swapped, cand, seed)
    stop_at = (a, b) if name in ("wuren", "campus") else ()
    assert assert_same_views(state_a, state_b, viewer, max_steps=70, rnd=rnd, ignore_pile_cards=True,
                             stop_at=stop_at) >= 1


@pytest.mark.parametrize("name,solo_hands,guard_hands", [
    ("lianzhong_classic",
     ["BJ* 9H 9H 9H 9H KS", "8S QS", "8S 8H", "7S 7H", "TS TH"],
     ["BJ* 9H 9H 9H 8S KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]),
    ("wuren",
     ["9H 9H 9H 9H KS", "8S QS", "8S 8H", "7S 7H", "TS TH"],
     ["9H 9H 9H 8S KS", "9H QS", "8S 8H", "7S 7H", "TS TH"]),
    ("campus",
     ["BJ* 9H 9H 9H 9H KS", "9S QS 8S", "9C 8H", "9D 7H", "9S TH"],
     ["BJ* 9H 9H 9H 8S KS", "9S QS 9H", "9C 8H", "9D 7H", "9S TH"]),
])
def test_s3_calling_a_card_held_four_times_looks_like_calling_a_guard(name, solo_hands, guard_hands):
    """A hidden solo by a called card (§3.3-§3.5) is known only to the emperor; seat 1 holds the fourth
    copy in the second deal. Seats 2, 3, 4 must see the same thing in both."""
    rules = engine.preset(name)
    kwargs = {"candidate": 0} if name == "wuren" else {}
    for viewer in (2, 3, 4):
        state_a = engine.new_deal(rules, hands=[h.split() for h in solo_hands], **kwargs)
        state_b = engine.new_deal(rules, hands=[h.split() for h in guard_hands], **kwargs)
        PHASES_SEEN.clear()
        assert assert_same_views(state_a, state_b, viewer) >= 3
        assert "play" in PHASES_SEEN
