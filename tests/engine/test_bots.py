"""The bot player (docs/engine.md `bot_action`): legal, terminating, blind to hidden cards, pure.

* every preset: seeded deals with bots in all seats, and bots mixed with trustee and random seats,
  end (over or void), and every bot choice is one of the seat's legal actions;
* no peeking: two deals that differ only in what a seat cannot see (the other hands' cards shuffled
  among them with the same counts; where the guard is hidden, which other seat holds the guard
  card), driven through the same public history, give that seat the same view and the same choice;
* the bots package imports nothing but the engine and the standard library;
* the play heuristics (docs/rules.md §1 "Turn flow"): no beating a known partner, the lowest set led,
  a joker spent against an opponent about to go out (and kept otherwise), must-last cards last;
* levels: easy differs from normal somewhere, each is deterministic given view and rng, an unknown
  level is a ValueError.
"""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest

from games import engine
from games.engine import Action
from games.engine.bots import searching

from .helpers import ENDED, PASS, PRESET_NAMES, SOLO, STAY, P, act, answer_window, deal

BOTS_DIR = Path(engine.__file__).resolve().parent / "bots"
MAX_DECISIONS = 3000


def _choose(state, seat, kind, rng):
    if kind == "bot":
        return engine.bot_action(engine.seat_view(state, seat))
    if kind == "easy":
        return engine.bot_action(engine.seat_view(state, seat), level="easy", rng=rng)
    if kind == "trustee":
        return engine.trustee_action(state, seat)
    legal = engine.legal_actions(state, seat)
    return legal[rng.randrange(len(legal))]


def _play_out(state, kinds, rng):
    """Play to the end; every bot choice must be legal. Returns the final state."""
    for _ in range(MAX_DECISIONS):
        if state.phase in ENDED:
            return state
        seats = engine.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        action = _choose(state, seat, kinds[seat], rng)
        if kinds[seat] in ("bot", "easy"):
            assert action in engine.legal_actions(state, seat), (kinds[seat], seat, action)
        state = act(state, seat, action)
    raise AssertionError(f"the deal did not end within {MAX_DECISIONS} decisions")


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_bots_in_every_seat_play_legal_actions_to_the_end(name):
    rules = engine.preset(name)
    rng = random.Random(name)
    played = 0
    for seed in range(8):
        final = _play_out(engine.new_deal(rules, seed=seed), ("bot",) * 5, rng)
        view = engine.final_view(final)
        assert len(view["scores"]) == 5
        played += len(view["actions"])
    assert played > 8 * 20  # real deals were played, not only void ones


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_bots_mixed_with_trustee_random_and_easy_seats_finish(name):
    rules = engine.preset(name)
    rng = random.Random(f"mixed {name}")
    line_ups = [
        ("bot", "trustee", "random", "bot", "easy"),
        ("random", "bot", "trustee", "easy", "random"),
        ("trustee", "trustee", "bot", "trustee", "trustee"),
        ("random",) * 4 + ("bot",),
    ]
    for seed, kinds in enumerate(line_ups):
        final = _play_out(engine.new_deal(rules, seed=100 + seed), kinds, rng)
        assert final.phase in ENDED


def test_bots_in_lianzhong_with_every_option_finish():
    rules = engine.preset("lianzhong_simple", must_last=6, roasting=True, qiangdu=False)
    classic = engine.preset("lianzhong_classic", must_last=6, roasting=True)
    rng = random.Random(3)
    for seed in range(4):
        for r in (rules, classic):
            assert _play_out(engine.new_deal(r, seed=seed), ("bot",) * 5, rng).phase in ENDED


# --- no peeking -------------------------------------------------------------------------------------

SHUFFLED_RANKS = "789TJQK"  # no 2s, jokers or 3s: they travel in 贴2, tribute and buying a 3


def _hidden_variant(hands, viewer, rng, move_guard_card):
    """The other seats' cards of ranks 7..K shuffled among them with every count kept, and (where the
    guard is a fixed SJ* that the viewer does not hold) the guard card moved to another seat."""
    hands = [list(h) for h in hands]
    others = [s for s in range(5) if s != viewer]
    pool = []
    slots = []
    for seat in others:
        for index, code in enumerate(hands[seat]):
            if code[0] in SHUFFLED_RANKS and not code.endswith("*"):
                pool.append(code)
                slots.append((seat, index))
    rng.shuffle(pool)
    for (seat, index), code in zip(slots, pool):
        hands[seat][index] = code
    if move_guard_card:
        holder = next((s for s in others if "SJ*" in hands[s]), None)
        if holder is not None:
            target = next(
                s
                for s in others
                if s != holder and "BJ*" not in hands[s] and any(c[0] in SHUFFLED_RANKS for c in hands[s])
            )
            swap = next(i for i, c in enumerate(hands[target]) if c[0] in SHUFFLED_RANKS)
            hands[holder][hands[holder].index("SJ*")], hands[target][swap] = hands[target][swap], "SJ*"
    return hands


def _dealt_hands(rules, seed):
    """A seeded deal's hands as its seats see them, and its candidate."""
    state = engine.new_deal(rules, seed=seed)
    return [list(engine.seat_view(state, s)["hand"]) for s in range(5)], state.candidate


def _compare_blind(name, seed, viewer, level="normal"):
    """Drive two deals through one public history; return how many of the viewer's decisions were
    compared (views equal, choices equal). `hard` gets engine.bot_view (the view plus the public
    plays) and the same rng in both deals."""
    rules = engine.preset(name)
    hands, candidate = _dealt_hands(rules, seed)
    rng = random.Random(seed * 7 + viewer)
    move_guard = rules.guard_mode == "fixed" and "SJ*" not in hands[viewer]
    variant = _hidden_variant(hands, viewer, rng, move_guard)
    assert variant != hands
    a = engine.new_deal(rules, hands=hands, candidate=candidate, seed=seed)
    b = engine.new_deal(rules, hands=variant, candidate=candidate, seed=seed)
    compared = 0
    for _ in range(MAX_DECISIONS):
        if a.phase in ENDED or b.phase in ENDED:
            break
        seats = engine.to_act(a)
        if engine.to_act(b) != seats:
            break
        seat = seats[0]
        if seat == viewer:
            view_a, view_b = engine.bot_view(a, viewer), engine.bot_view(b, viewer)
            if view_a != view_b:
                break  # the viewer was shown something different: no longer a pair to compare
            choice_b = engine.bot_action(view_b, level=level, rng=random.Random(len(a.log)))
            choice_a = engine.bot_action(view_a, level=level, rng=random.Random(len(a.log)))
            assert choice_a == choice_b, f"{name} seed {seed} seat {viewer}: {choice_a} != {choice_b}"
            compared += 1
            action = choice_a
        else:
            legal_b = set(engine.legal_actions(b, seat))
            common = [x for x in engine.legal_actions(a, seat) if x in legal_b]
            if not common:
                break
            passing = [x for x in common if x in (PASS, STAY)]
            action = passing[0] if passing and rng.random() < 0.6 else common[rng.randrange(len(common))]
        a, b = act(a, seat, action), act(b, seat, action)
    return compared


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_bot_sees_nothing_hidden_same_choice_when_only_hidden_cards_differ(name):
    compared = 0
    for seed in range(3):
        for viewer in range(5):
            compared += _compare_blind(name, seed, viewer)
    assert compared >= 60, f"only {compared} decisions compared"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_hard_bot_sees_nothing_hidden_same_choice_when_only_hidden_cards_differ(name, monkeypatch):
    """The same pairs of deals for `hard`, which samples the hidden cards: equal views and the same
    rng give the same choice. A small search budget keeps the test quick; choosing by the mean alone
    (no margin over the normal choice) makes every choice depend on the sampled worlds."""
    monkeypatch.setattr(searching, "DECISION_BUDGET", 600)
    monkeypatch.setattr(searching, "SURE", 0.0)
    compared = searched = 0
    calls = []
    real = searching.Deducer.world
    monkeypatch.setattr(
        searching.Deducer, "world", lambda self, rng, budget=None: calls.append(1) or real(self, rng, budget)
    )
    for viewer in range(5):
        compared += _compare_blind(name, 0, viewer, level="hard")
    searched = len(calls)
    assert compared >= 20, f"only {compared} decisions compared"
    assert searched > 0, "no decision was searched"


def test_bot_ignores_which_other_seat_holds_a_hidden_guard_card():
    """weihai: seat 0 is emperor (BJ*), the guard card SJ* sits with seat 2 or with seat 3; seat 1,
    a commoner who cannot know which, answers the emperor's lead the same in both deals."""
    base = [
        "BJ* 2S KS KH 9C 9D",
        "7S 7H 8S 8H QS TD",
        "SJ* AS AH JC JD 8C",
        "AC AD QC QD TC TH",
        "KC KD JS JH 9S 9H",
    ]
    swapped = list(base)
    swapped[2], swapped[3] = base[2].replace("SJ*", "AC"), base[3].replace("AC", "SJ*")
    a, b = deal("weihai", base), deal("weihai", swapped)
    a, b = act(a, 0, Action("accept")), act(b, 0, Action("accept"))
    while a.phase.endswith("_window"):
        seat = engine.to_act(a)[0]
        a, b = act(a, seat, STAY), act(b, seat, STAY)
    assert a.phase == b.phase == "play"
    a, b = act(a, 0, P("9C 9D")), act(b, 0, P("9C 9D"))
    view_a, view_b = engine.seat_view(a, 1), engine.seat_view(b, 1)
    assert view_a == view_b
    assert engine.bot_action(view_a) == engine.bot_action(view_b)
    hard_a, hard_b = engine.bot_view(a, 1), engine.bot_view(b, 1)
    assert hard_a == hard_b
    assert engine.bot_action(hard_a, level="hard", rng=random.Random(1)) == engine.bot_action(
        hard_b, level="hard", rng=random.Random(1)
    )


# --- what the bots module may import ---------------------------------------------------------------


def test_bots_import_only_the_engine_and_the_standard_library():
    files = sorted(BOTS_DIR.glob("*.py"))
    assert files, "no bots package found"
    outside = []
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module.split(".")[0] not in sys.stdlib_module_names:
                    outside.append((path.name, node.module))
                if node.level > 2:
                    outside.append((path.name, "." * node.level + (node.module or "")))
            elif isinstance(node, ast.Import):
                outside += [
                    (path.name, alias.name)
                    for alias in node.names
                    if alias.name.split(".")[0] not in sys.stdlib_module_names
                ]
    assert outside == [], f"imports outside the engine and the standard library: {outside}"


def test_bot_action_is_a_function_of_the_view_dict_alone():
    """It takes the served JSON (a plain dict); handing it a State is a mistake it refuses."""
    state = engine.new_deal(engine.preset("pagat"), seed=5)
    seat = engine.to_act(state)[0]
    view = engine.seat_view(state, seat)
    assert engine.bot_action(dict(view)) == engine.bot_action(view)
    with pytest.raises((TypeError, KeyError)):
        engine.bot_action(state)


# --- heuristics --------------------------------------------------------------------------------------


def _weihai_open_solo(hands):
    """Seat 0 holds BJ* and declares an open solo (明独); everyone stays in the kick window. The other
    four then all know they are partners against seat 0 (docs/rules.md §3.1)."""
    state = act(deal("weihai", hands), 0, SOLO)
    while state.phase.endswith("_window"):
        state = act(state, engine.to_act(state)[0], STAY)
    assert state.phase == "play" and engine.to_act(state) == (0,)
    return state


def _bot(state, seat):
    assert engine.to_act(state) == (seat,)
    return engine.bot_action(engine.seat_view(state, seat))


def test_bot_does_not_beat_a_known_partner_who_holds_the_trick():
    hands = [
        "BJ* 7C 8C 9C TC JC QC KC AC 2C",
        "QS 9S 9H 8S 8H TS TH JS JH",
        "AS AH 2S TD JD 7D 8D 9D QD",
        "7S 7H 8H 9S TS JS QH KH 2H",
        "KS KD QS JH TH 9H 8S 7S 2D",
    ]
    state = _weihai_open_solo(hands)
    state = act(state, 0, P("7C"))
    state = act(state, 1, P("QS"))  # seat 1, a partner of seat 2 against the soloist, holds the trick
    assert Action("play", ("2S",)) in engine.legal_actions(state, 2)  # a whole set it would play on a foe
    assert _bot(state, 2) == PASS


def test_bot_beats_the_soloist_when_it_can_win_the_trick_cheaply():
    hands = [
        "BJ* 7C 8C 9C TC JC QC KC AC 2C",
        "QS 9S 9H 8S 8H TS TH JS JH",
        "AS AH 2S TD JD 7D 8D 9D QD",
        "7S 7H 8H 9S TS JS QH KH 2H",
        "KS KD QS JH TH 9H 8S 7S 2D",
    ]
    state = _weihai_open_solo(hands)
    state = act(state, 0, P("7C"))
    choice = _bot(state, 1)
    assert choice.type == "play" and choice.cards == ("QS",)  # a whole one-card set, not a broken pair


def test_bot_leads_the_set_holding_its_lowest_card():
    hands = [
        "BJ* 8C 8D 9C 9D 9H KC KD KH AS",
        "7S 7H 8S 8H TS TH JS JH QS",
        "AH 2S TD JD 7D 8D 9S QD QH",
        "TC JC QC KS AC AD 2C 2D 2H",
        "JD TC QS KS 9S 8S 7C 7H QH",
    ]
    state = act(deal("weihai", hands), 0, Action("accept"))
    while state.phase.endswith("_window"):
        state = act(state, engine.to_act(state)[0], STAY)
    choice = _bot(state, 0)
    assert choice.type == "play" and sorted(choice.cards) == ["8C", "8D"]


def _soloist_leads_a_king(soloist_rest):
    """Seat 4 claims an open solo in the solo window (明独) and leads a king; seat 0, next to act,
    can beat it only with its big joker (BJ*, a plain joker once a solo is open, docs/rules.md §2.5)."""
    hands = [
        "BJ* 7S 7H 8S 8H 9S 9H TS TH",
        "7D 8D 9D TD JD QD AD 2D",
        "7C 8C 9C TC JC QC AC 2C",
        "JS JH QS QH 2S 2H AS AH",
        "KS " + soloist_rest,
    ]
    state = act(deal("weihai", hands), 0, Action("accept"))
    state = answer_window(state, {4: SOLO}, expect="solo_window")
    while state.phase.endswith("_window"):
        state = act(state, engine.to_act(state)[0], STAY)
    assert engine.seat_view(state, 0)["roles"][4] == "soloist"
    return act(state, 4, P("KS"))


def test_bot_spends_a_joker_to_stop_an_opponent_with_one_card_left():
    state = _soloist_leads_a_king("QC")
    assert engine.seat_view(state, 0)["counts"][4] == 1
    assert _bot(state, 0) == Action("play", ("BJ*",))


def test_bot_keeps_its_joker_when_the_opponent_is_far_from_out():
    state = _soloist_leads_a_king("QC 9C 9D TC TD JC 8C 8D 7C")
    assert engine.seat_view(state, 0)["counts"][4] == 9
    assert _bot(state, 0) == PASS


def test_bot_leads_a_set_larger_than_a_nearly_out_opponents_hand():
    """The soloist holds two cards: any pair or single could let him out, a triple cannot be answered
    (an answer has as many cards as the play), so the bot leads its triple, not its lowest card."""
    hands = [
        "BJ* 7C 8C",
        "TS 7S 8S 8H 9S 9H 9D",
        "7D 8D TD JD QD KD AD 2D",
        "7H 9C TC JC QC KC AC 2C",
        "KS QH 2S 2H AS AH KH TH",
    ]
    state = _weihai_open_solo(hands)
    state = act(state, 0, P("7C"))
    state = act(state, 1, P("TS"))
    for seat in (2, 3, 4, 0):
        state = act(state, seat, PASS)
    assert engine.seat_view(state, 1)["counts"][0] == 2
    choice = _bot(state, 1)
    assert choice.type == "play" and sorted(choice.cards) == ["9D", "9H", "9S"]


def test_bot_keeps_must_last_sixes_for_its_last_play():
    """weihai 憋6: the sixes go only with the last play, so the bot leads its other set first and then
    goes out with the sixes (docs/rules.md §1 "Must-play-last")."""
    hands = [
        "BJ* 6S 6H KC KD KH",
        "7S 7H 8S 8H TS TH",
        "7D 8D 9D TD JD QD",
        "7C 8C 9C TC JC QC",
        "JS JH QS QH AS AH",
    ]
    state = act(deal("weihai", hands), 0, Action("accept"))
    while state.phase.endswith("_window"):
        state = act(state, engine.to_act(state)[0], STAY)
    first = _bot(state, 0)
    assert first.type == "play" and not any(c.startswith("6") for c in first.cards)


# --- levels ------------------------------------------------------------------------------------------


def test_easy_differs_from_normal_and_both_are_deterministic():
    rules = engine.preset("lianzhong_simple")
    state = engine.new_deal(rules, seed=11)
    differs = 0
    for _ in range(400):
        if state.phase in ENDED:
            break
        seat = engine.to_act(state)[0]
        view = engine.seat_view(state, seat)
        normal = engine.bot_action(view)
        easy = engine.bot_action(view, level="easy", rng=random.Random(len(view["hand"]) + seat))
        assert easy == engine.bot_action(view, level="easy", rng=random.Random(len(view["hand"]) + seat))
        assert easy in engine.legal_actions(state, seat)
        assert normal == engine.bot_action(view, level="normal", rng=random.Random(99))
        differs += easy != normal
        state = act(state, seat, normal)
    assert differs > 0


def test_unknown_level_is_a_value_error():
    state = engine.new_deal(engine.preset("weihai"), seed=1)
    view = engine.seat_view(state, engine.to_act(state)[0])
    with pytest.raises(ValueError):
        engine.bot_action(view, level="grandmaster")


# --- hard --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_hard_bot_plays_legal_deterministic_actions_to_the_end(name, monkeypatch):
    """One hard seat among normal ones (a small search budget keeps it quick): every choice is legal
    and the same for the same view and rng."""
    monkeypatch.setattr(searching, "DECISION_BUDGET", 150)
    state = engine.new_deal(engine.preset(name), seed=21)
    for _ in range(MAX_DECISIONS):
        if state.phase in ENDED:
            break
        seat = engine.to_act(state)[0]
        if seat == 2:
            view = engine.bot_view(state, seat)
            action = engine.bot_action(view, level="hard", rng=random.Random(len(state.log)))
            assert action in engine.legal_actions(state, seat)
            assert action == engine.bot_action(view, level="hard", rng=random.Random(len(state.log)))
        else:
            action = engine.bot_action(engine.seat_view(state, seat))
        state = act(state, seat, action)
    assert state.phase in ENDED


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_hard_worlds_agree_with_the_view(name):
    """A sampled world keeps my hand, every seat's card count, the roles the view shows, and no card
    already played; the called or marked card sits with a seat that may hold it."""
    state = engine.new_deal(engine.preset(name), seed=4)
    checked = 0
    for _ in range(MAX_DECISIONS):
        if state.phase in ENDED:
            break
        seat = engine.to_act(state)[0]
        if state.phase == "play" and seat == 1:
            view = engine.bot_view(state, seat)
            from games.engine.bots.reading import read_view

            world = searching.Deducer(view, read_view(view)).world(random.Random(checked))
            assert world is not None
            assert sorted(world.hands[1]) == sorted(view["hand"])
            for s, shown in enumerate(view["counts"]):
                if isinstance(shown, int):
                    assert len(world.hands[s]) == shown
            assert world.emperor == state.emperor and world.turn == state.turn
            played = [c for _, cards in view["plays"] for c in cards]
            held = [c for h in world.hands for c in h]
            deck = list(state.rules.deck)
            for code in set(held):
                assert held.count(code) + played.count(code) <= deck.count(code)
            if "BJ*" in held and "BJ*" not in view["hand"] and "BJ*" not in played:
                assert "BJ*" in world.hands[state.emperor]
            checked += 1
        state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    assert checked >= 3


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_hard_worlds_before_play_show_my_seat_the_view_i_was_shown(name):
    """Before play (emperor selection, the guard call, the windows), a sampled world put back into
    the view's phase shows my seat exactly my view: hand, counts, roles, candidate, travelling cards,
    window, declarations, multiplier and (campus apart, where a callable card needs every other hand
    to hold its rank, which a world may not deal) the same legal actions."""
    from games.engine.bots.reading import read_view

    checked = 0
    for seed in range(3):
        state = engine.new_deal(engine.preset(name), seed=seed)
        while state.phase not in ENDED and state.phase != "play":
            for seat in engine.to_act(state):
                view = engine.bot_view(state, seat)
                if len(view["legal_actions"]) < 2:
                    continue
                world = searching.Deducer(view, read_view(view)).before_play(random.Random(seed), [10**9])
                assert world is not None
                shown = engine.bot_view(world, seat)
                if state.rules.call_mode == "campus":
                    shown["legal_actions"] = view["legal_actions"]
                assert shown == view
                checked += 1
            seat = engine.to_act(state)[0]
            state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    assert checked >= 3


def test_hard_differs_from_normal_somewhere(monkeypatch):
    monkeypatch.setattr(searching, "DECISION_BUDGET", 400)
    differs = 0
    for seed in range(3):
        state = engine.new_deal(engine.preset("pagat"), seed=seed)
        while state.phase not in ENDED:
            seat = engine.to_act(state)[0]
            view = engine.bot_view(state, seat)
            normal = engine.bot_action(view)
            differs += engine.bot_action(view, level="hard", rng=random.Random(seed)) != normal
            state = act(state, seat, normal)
    assert differs > 0


def test_hard_searches_nothing_for_a_single_legal_action(monkeypatch):
    state = engine.new_deal(engine.preset("weihai"), seed=3)
    while not (state.phase == "play" and len(engine.legal_actions(state, engine.to_act(state)[0])) == 1):
        seat = engine.to_act(state)[0]
        state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    monkeypatch.setattr(searching.Deducer, "world", lambda self, rng, budget=None: pytest.fail("searched"))
    seat = engine.to_act(state)[0]
    assert engine.bot_action(engine.bot_view(state, seat), level="hard", rng=random.Random(0)) == PASS



@pytest.mark.parametrize("name", PRESET_NAMES)
def test_hard_searches_its_answers_before_play_only_where_that_gained(name, monkeypatch):
    """lianzhong_simple, lianzhong_classic and pagat search every pre-play answer with a choice
    (docs/bots.md "Before play"); the other presets answer as the normal bot, sampling no world."""

    class Searched(Exception):
        pass

    def before_play(self, rng, budget):
        raise Searched

    monkeypatch.setattr(searching.Deducer, "before_play", before_play)
    searches = name in ("lianzhong_simple", "lianzhong_classic", "pagat")
    asked = 0
    for seed in range(3):
        state = engine.new_deal(engine.preset(name), seed=seed)
        while state.phase not in ENDED and state.phase != "play":
            seat = engine.to_act(state)[0]
            view = engine.bot_view(state, seat)
            if len(view["legal_actions"]) > 1:
                asked += 1
                if searches:
                    with pytest.raises(Searched):
                        engine.bot_action(view, level="hard", rng=random.Random(0))
                else:
                    hard = engine.bot_action(view, level="hard", rng=random.Random(0))
                    assert hard == engine.bot_action(view)
            state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    assert asked > 0

def _first_play_view(name, seed, seat):
    """The bot view of `seat` when play starts (normal bots before)."""
    state = engine.new_deal(engine.preset(name), seed=seed)
    while state.phase != "play":
        if state.phase in ENDED:
            return None, None
        mover = engine.to_act(state)[0]
        state = act(state, mover, engine.bot_action(engine.seat_view(state, mover)))
    return state, engine.bot_view(state, seat)


def test_hard_reads_leads_and_passes_from_the_public_plays():
    """A lead after which the leader played again, or that beats nothing, is a new trick: its rank
    is the leader's floor; the seats between two plays passed on the first, all of them before a
    lead; `passed` adds the current trick's passes; `later` counts what the passer played after."""
    from games.engine.bots.reading import read_view

    _, view = _first_play_view("weihai", 1, 1)
    reading = read_view(view)
    view = {
        **view,
        "plays": [[0, ["7S", "7H"]], [2, ["9S", "9D"]], [2, ["8S"]], [3, ["TS"]]],
        "table": {"seat": 3, "cards": ["TS"], "bomb": False},
        "passed": [4],
    }
    floors, passes = searching.read_plays(view, reading, [20, 20, 20, 20, 20])
    assert floors == [7, 0, 8, 0, 0]
    found = {(seat, owner, size, top): dict(later) for seat, owner, size, top, later in passes}
    assert found == {
        (0, 2, 2, 9): {},  # 99 then seat 2 led again: everyone passed on 99
        (3, 2, 2, 9): {10: 1},  # ... seat 3 played a ten after that pass
        (4, 2, 2, 9): {},
        (4, 3, 1, 10): {},  # the current trick's pass
    }


def test_hard_worlds_respect_the_floors_read_from_leads(monkeypatch):
    """Every sampled world gives a seat whose leads showed a floor only naturals above it (or the
    must-last rank), and the world agrees with the passes read whenever one of the tries does."""
    from games.engine.bots.reading import read_view
    from games.engine.cards import BASE_VALUE
    from games.engine.plays import JOKER_FLOOR

    _, view = _first_play_view("weihai", 1, 1)
    view = {
        **view,
        "plays": [[0, ["7S", "7H"]], [2, ["9S", "9D"]], [2, ["8S"]], [3, ["TS"]]],
        "table": {"seat": 3, "cards": ["TS"], "bomb": False},
        "passed": [4],
        "counts": [n - len(played) for n, played in zip(view["counts"], ([], [], ["x"] * 3, ["x"], []))],
        "turn": 0,
    }
    view["counts"][0] -= 2
    deducer = searching.Deducer(view, read_view(view))
    assert deducer.floors[0] == 7 and deducer.floors[2] == 8
    rng = random.Random(5)
    plain_broken = sum(deducer._broken(*deducer._deal(rng)) for _ in range(40))
    assert plain_broken > 0  # the passes read do rule out some deals
    broken = 0
    for _ in range(40):
        world = deducer.world(rng)
        for seat, floor in ((0, 7), (2, 8)):
            low = [c for c in world.hands[seat] if BASE_VALUE[c] < JOKER_FLOOR and 6 < BASE_VALUE[c] <= floor]
            assert not low, (seat, low)
        broken += deducer._broken([list(h) for h in world.hands], world.guard, world.solo)
    assert broken < plain_broken


def test_hard_floors_and_passes_hold_for_normal_players():
    """Read from normal bots' plays, the floors and the passes agree with the true hands: a lead's
    rank is the leader's lowest, and nobody passes an opponent's play holding exactly that many
    naturals of a higher rank (the same side's passes are read only where the passer cannot know)."""
    from games.engine.bots.reading import read_view

    checked = 0
    for name in ("weihai", "wuren", "laowang"):
        state = engine.new_deal(engine.preset(name), seed=8)
        while state.phase not in ENDED:
            seat = engine.to_act(state)[0]
            view = engine.bot_view(state, seat)
            if state.phase == "play" and seat == 0 and view["plays"]:
                deducer = searching.Deducer(view, read_view(view))
                assert deducer._broken([list(h) for h in state.hands], state.guard, state.solo) == 0
                for s, floor in enumerate(deducer.floors):
                    naturals = [c for c in state.hands[s] if c[0] not in "SB"]
                    low = [
                        c
                        for c in naturals
                        if engine.preset(name).must_last != _value(c) and _value(c) <= floor
                    ]
                    assert not low, (name, s, floor, low)
                checked += len(deducer.passes)
            state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    assert checked > 100


def _broken_pass_by_pass(deducer, hands, guard, solo):
    """The pass rule spelled out one pass at a time (docs/bots.md "What the plays say")."""
    from collections import Counter

    from games.engine.cards import BASE_VALUE, SUPER_VALUE
    from games.engine.plays import JOKER_FLOOR

    must_last = deducer.reading.rules.must_last
    side = [1 if s == deducer.emperor or (not solo and s == guard) else 0 for s in range(5)]
    broken = 0
    for passer, owner, size, top, later in deducer.passes:
        if side[passer] == side[owner] and (
            deducer.teams_public or passer == guard or (passer != deducer.emperor and owner in deducer.rebels)
        ):
            continue
        supers = deducer.supers[passer]
        values = [SUPER_VALUE if c in supers else BASE_VALUE[c] for c in hands[passer]]
        then = Counter(v for v in values if v < JOKER_FLOOR) + later
        broken += any(v > top and v != must_last and n == size for v, n in then.items())
    return broken


@pytest.mark.parametrize("name", ["weihai", "lianzhong_classic", "campus", "laowang"])
def test_hard_counts_the_broken_passes_one_by_one(name):
    """`_broken` groups the passes read by passer and what it played since and counts a group's
    broken passes at once; on dealt worlds of late views it counts exactly the passes that the rule,
    applied pass by pass, says the deal breaks."""
    from games.engine.bots.reading import read_view

    rng = random.Random(name)
    compared = broken_seen = 0
    state = engine.new_deal(engine.preset(name), seed=3)
    while state.phase not in ENDED:
        seat = engine.to_act(state)[0]
        view = engine.bot_view(state, seat)
        if state.phase == "play" and len(view["plays"]) % 7 == 6:
            deducer = searching.Deducer(view, read_view(view))
            for _ in range(10):
                dealt = deducer._deal(rng)
                if dealt is None:
                    continue
                expected = _broken_pass_by_pass(deducer, *dealt)
                assert deducer._broken(*dealt) == expected
                compared += 1
                broken_seen += expected > 0
        state = act(state, seat, engine.bot_action(engine.seat_view(state, seat)))
    assert compared > 20 and broken_seen > 0


def _value(code):
    from games.engine.cards import BASE_VALUE

    return BASE_VALUE[code]


def test_rollout_players_leave_only_known_partners_alone():
    """In a rollout a hidden guard knows the emperor and leaves his tricks alone; the emperor does
    not know the hidden guard and beats him like anyone else, and commoners do not know each other."""
    for seed in range(20):
        state, _ = _first_play_view("lianzhong_classic", seed, 0)
        if state is not None and state.guard is not None and not state.guard_public and not state.solo:
            break
    rollout = searching.Rollout(state)
    emperor, guard = state.emperor, state.guard
    commoners = [s for s in range(5) if s not in (emperor, guard)]
    assert rollout.knows[guard][emperor] and not rollout.knows[emperor][guard]
    assert not rollout.knows[commoners[0]][commoners[1]]
    assert not rollout.knows[commoners[0]][emperor]


@pytest.mark.parametrize("name", engine.PRESETS)
def test_a_rollout_may_stop_when_the_holders_left_are_one_side(name):
    """Rollout.run stops once every seat still holding cards is on one side: that is sound only if
    no preset's scoring tells apart the orders of those seats among the last places. Every finish
    order of real deals' roles, its one-side tail permuted, scores the same."""
    import itertools

    from games.engine.scoring import deal_result

    checked = 0
    for seed in range(6):
        state = engine.new_deal(engine.preset(name), seed=seed)
        while state.phase not in ("play", "over", "void"):
            seat = engine.to_act(state)[0]
            state, _ = engine.apply_action(state, seat, engine.bot_action(engine.seat_view(state, seat)))
        if state.phase != "play":
            continue
        side = [searching._side(state, s) for s in range(5)]
        for order in itertools.permutations(range(5)):
            places = [0] * 5
            for place, seat in enumerate(order, start=1):
                places[seat] = place
            first = 4  # where the one-side tail of the finish order starts
            while first > 0 and side[order[first - 1]] == side[order[4]]:
                first -= 1
            scores = deal_result(state, tuple(places))[0]
            for tail in itertools.permutations(order[first:]):
                shuffled = list(places)
                for place, seat in enumerate(tail, start=first + 1):
                    shuffled[seat] = place
                assert deal_result(state, tuple(shuffled))[0] == scores, (order, tail)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", engine.PRESETS)
def test_a_rollout_judges_a_whole_set_of_naturals_as_the_engine_does(name):
    """Rollout._follow answers with a whole set of naturals without the engine's beating rules: it
    beats a play of its size exactly when its rank is above the play's highest card. Every valid
    table of one to four cards (naturals of one rank with jokers or super cards attached, or jokers
    alone) against every natural rank agrees with plays.beats_values for the preset."""
    import itertools

    from games.engine.cards import BASE_VALUE, BJ_VALUE, SJ_VALUE, SUPER_VALUE
    from games.engine.plays import JOKER_FLOOR, beats_values, is_valid_play

    rules = engine.preset(name)
    naturals = sorted({v for v in BASE_VALUE.values() if v < JOKER_FLOOR})
    toppers = (SUPER_VALUE, BJ_VALUE, SJ_VALUE)
    checked = 0
    for size in range(1, 5):
        for attached in range(size + 1):
            for jokers in itertools.combinations_with_replacement(toppers, attached):
                for rank in naturals if attached < size else [None]:
                    table = tuple(sorted(jokers + (rank,) * (size - attached), reverse=True))
                    if not is_valid_play(rules, table):
                        continue
                    for value in naturals:
                        answer = (value,) * size
                        assert beats_values(rules, answer, table) == (value > table[0]), (table, answer)
                        checked += 1
    assert checked > 1000
