"""docs/rules.md §1 "End of a deal" and §3 scoring/tribute, checked against an oracle written from the spec
on random playouts of every preset:

* the deal ends at the first moment every seat's score (and tribute count) is fixed whatever order
  the remaining players would finish in (all completions are checked), and not before;
* players still holding cards take the remaining places in seat order after the last player out;
* the scores are the spec's table for the roles, places and multiplier of the deal;
* the tribute counts owed (wuren, laowang, pagat) follow the spec's tables.
"""

from __future__ import annotations

from itertools import permutations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games import engine

from .helpers import ENDED


def _side(roles):
    emperor = next((s for s in range(5) if roles[s] in ("emperor", "soloist")), None)
    guard = next((s for s in range(5) if roles[s] == "guard"), None)
    return emperor, guard


def spec_scores(name, roles, solo, places, multiplier):
    """Scores for complete places (seat -> 1..5) from docs/rules.md §3 (before any rounding)."""
    emperor, guard = _side(roles)
    p = places
    out = [0] * 5
    if name == "weihai":
        if solo == "open":
            win = p[emperor] == 1
            out = [(-8 if win else 8)] * 5
            out[emperor] = 32 if win else -32
        elif solo == "hidden":
            pe = p[emperor]
            out = [[-4, -2, 0, 2, 4][pe - 1]] * 5
            out[emperor] = [16, 8, 0, -8, -16][pe - 1]
        else:
            pts = [4, 2, 0, -2, -4]
            S = pts[p[emperor] - 1] + pts[p[guard] - 1]
            out = [-S] * 5
            out[emperor], out[guard] = 2 * S, S
    elif name in ("lianzhong_simple", "lianzhong_classic", "pagat"):
        if solo == "open":
            win = p[emperor] == 1
            out = [(-6 if win else 6)] * 5
            out[emperor] = 24 if win else -24
        elif solo == "hidden":
            pe = p[emperor]
            value = 12 if pe == 1 else (0 if pe == 2 else -12)
            out = [-value // 4] * 5
            out[emperor] = value
        elif name == "pagat":
            vals = [2, 1, 0, -1, -2]
            T = vals[p[emperor] - 1] + vals[p[guard] - 1]
            out = [-T] * 5
            out[emperor], out[guard] = 2 * T, T
        else:
            g = 6 - (p[emperor] + p[guard])
            out = [-g] * 5
            out[emperor], out[guard] = 2 * g, g
    elif name == "wuren":
        pts = [4, 2, 0, -2, -4]
        if solo:
            team = pts[p[emperor] - 1]
            out = [-team] * 5
            out[emperor] = team
        else:
            team = pts[p[emperor] - 1] + pts[p[guard] - 1]
            out = [-team] * 5
            out[emperor] = out[guard] = team
    elif name == "campus":
        chips = [3, 2, 1, 0, -1]
        if solo:
            own = chips[p[emperor] - 1]
            win = own > 5 - own
            out = [(-1 if win else 1)] * 5
            out[emperor] = 4 if win else -4
        else:
            own = chips[p[emperor] - 1] + chips[p[guard] - 1]
            win = own > 5 - own
            out = [(-1 if win else 1)] * 5
            out[emperor], out[guard] = (2, 1) if win else (-2, -1)
    elif name == "laowang":
        if solo:
            take = [8, 4, 0, -4, -8][p[emperor] - 1]
            out = [-take // 4] * 5
            out[emperor] = take
        else:
            pair = tuple(sorted((p[emperor], p[guard])))
            table = {(1, 2): (4, 2, -2), (1, 3): (2, 1, -1), (1, 4): (2, 1, -1), (2, 3): (2, 1, -1),
                     (1, 5): (0, 0, 0), (2, 4): (0, 0, 0), (2, 5): (-2, -1, 1), (3, 4): (-2, -1, 1),
                     (3, 5): (-2, -1, 1), (4, 5): (-4, -2, 2)}
            e, g, c = table[pair]
            out = [c] * 5
            out[emperor], out[guard] = e, g
    return [x * multiplier for x in out]


def spec_tribute(name, roles, solo, scores, multiplier):
    """(gives, takes) as {seat: n}, from docs/rules.md §3.4, §3.6, §3.7."""
    emperor, guard = _side(roles)
    gives, takes = {}, {}
    if name == "laowang":
        for s in range(5):
            if scores[s] < 0:
                gives[s] = -scores[s]
            elif scores[s] > 0:
                takes[s] = scores[s]
        return gives, takes
    if name not in ("wuren", "pagat"):
        return {}, {}
    won = scores[emperor] > 0
    if scores[emperor] == 0:
        return {}, {}
    opponents = [s for s in range(5) if s not in (emperor, guard)]
    factor = multiplier if name == "wuren" else 1  # wuren 明独 doubles every count
    if solo:
        if won:
            return {s: factor for s in opponents}, {emperor: 4 * factor}
        return {emperor: 4 * factor}, {s: factor for s in opponents}
    if won:
        return {s: 1 for s in opponents}, {emperor: 2, guard: 1}
    return {emperor: 2, guard: 1}, {s: 1 for s in opponents}


def spec_multiplier(name, roles, solo, declarations):
    """§2 Multiplier: 明保 and a successful rebellion double once together; weihai kicks double
    again (commoners need two kickers, the emperor side one); pagat: any declaration doubles once;
    wuren 明独 doubles."""
    kinds = [d["type"] for d in declarations]
    rebels = kinds.count("rebel")
    reveal = "reveal" in kinds
    m = 1
    if name in ("weihai", "lianzhong_simple", "lianzhong_classic", "campus"):
        if reveal or rebels >= 2:
            m *= 2
    elif name == "pagat":
        if reveal or rebels:
            m *= 2
    elif name == "wuren":
        if solo == "open":
            m *= 2
    if name == "weihai":
        emperor, guard = _side(roles)
        kickers = [d["seat"] for d in declarations if d["type"] == "kick"]
        if sum(1 for s in kickers if s not in (emperor, guard)) >= 2:
            m *= 2
        if any(s in (emperor, guard) for s in kickers):
            m *= 2
    return m


def _places_for(order_out, remaining_order):
    places = [None] * 5
    for i, s in enumerate(order_out + remaining_order):
        places[s] = i + 1
    return places


def _fixed(name, roles, solo, multiplier, out):
    rest = [s for s in range(5) if s not in out]
    results = {tuple(spec_scores(name, roles, solo, _places_for(out, list(perm)), multiplier))
               for perm in permutations(rest)}
    return len(results) == 1


PLAYS: list = []  # (seat, cards, emptied the hand) of the last random_deal


def random_deal(name, seed, rnd, options=None):
    PLAYS.clear()
    rules = engine.preset(name, **(options or {}))
    state = engine.new_deal(rules, seed=seed)
    outs = []
    for _ in range(3000):
        if state.phase in ENDED:
            return state, outs
        seat = rnd.choice(list(engine.to_act(state)))
        legal = engine.legal_actions(state, seat)
        plays = [a for a in legal if a.type == "play"]
        stays = [a for a in legal if a.type == "stay"]
        calm = [a for a in legal if a.type != "solo"]
        if state.phase in ("emperor_selection", "call") and calm and rnd.random() < 0.85:
            action = rnd.choice(calm)
        elif stays and rnd.random() < 0.7:
            action = stays[0]  # most seats stay, so every kind of deal shows up (2 v 3, solos, kicks)
        elif plays and rnd.random() < 0.7:
            action = rnd.choice(plays)
        else:
            action = rnd.choice(legal)
        before = engine.public_view(state)["places"]
        state, _ = engine.apply_action(state, seat, action)
        if action.type == "play":
            PLAYS.append((seat, action.cards, len(engine.seat_view(state, seat)["hand"]) == 0))
        after = engine.public_view(state)["places"]
        if state.phase == "play" or state.phase == "over":
            new = [s for s in range(5) if before[s] is None and after[s] is not None]
            if state.phase == "play":
                assert len(new) <= 1
                outs += new
            elif len(new) >= 1:
                # the last play out ended the deal: the player who emptied his hand is out
                emptied = [s for s in new if engine.final_view(state)["counts"][s] == 0]
                outs += emptied
    raise AssertionError("no end")


@pytest.mark.parametrize("name", engine.PRESETS)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(min_value=0, max_value=2**62), rnd=st.randoms(use_true_random=False))
def test_s1_deal_ends_exactly_when_scores_are_fixed_and_scores_follow_the_tables(name, seed, rnd):
    state, outs = random_deal(name, seed, rnd)
    final = engine.final_view(state)
    if final["void"]:
        assert final["scores"] == [0] * 5
        return
    roles, solo, multiplier = final["roles"], final.get("solo"), final["multiplier"]
    assert multiplier == spec_multiplier(name, roles, solo, final["declarations"]), final["declarations"]
    counts = final["counts"]
    assert sorted(outs) == sorted(s for s in range(5) if counts[s] == 0), (outs, counts)
    assert [final["places"][s] for s in outs] == list(range(1, len(outs) + 1))
    # the players still holding cards take the remaining places in seat order after the last out
    last = outs[-1]
    remaining = [(last + k) % 5 for k in range(1, 5) if (last + k) % 5 not in outs]
    assert final["places"] == _places_for(outs, remaining)
    # scores from the spec's table
    assert final["scores"] == spec_scores(name, roles, solo, final["places"], multiplier), \
        (roles, solo, final["places"], multiplier)
    # the deal ended at the first moment the outcome was fixed
    assert _fixed(name, roles, solo, multiplier, outs), "the deal ended before the outcome was fixed"
    for k in range(1, len(outs)):
        assert not _fixed(name, roles, solo, multiplier, outs[:k]), \
            f"the outcome was fixed after {outs[:k]} but the deal went on to {outs}"
    must_last = {"weihai": "6", "campus": "3"}.get(name)
    for seat, cards, emptied in PLAYS:
        if must_last and any(c[0] == must_last for c in cards):
            assert emptied, f"§1 must-play-last: {cards} by seat {seat} did not empty the hand"
    gives, takes = spec_tribute(name, roles, solo, final["scores"], multiplier)
    got_gives = {int(s): int(n) for s, n in final["tribute"]["gives"] if n}
    got_takes = {int(s): int(n) for s, n in final["tribute"]["takes"] if n}
    assert (got_gives, got_takes) == (gives, takes)


OPTION_VARIANTS = [
    ("lianzhong_simple", {"qiangdu": False, "must_last": 6, "roasting": True}),
    ("lianzhong_classic", {"qiangdu": False, "must_last": 6, "roasting": True}),
    ("lianzhong_simple", {"roasting": True}),
]


@pytest.mark.parametrize("name,options", OPTION_VARIANTS, ids=["simple_all_options", "classic_all_options",
                                                                "simple_roasting"])
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(min_value=0, max_value=2**62), rnd=st.randoms(use_true_random=False))
def test_s6_table_options_keep_scores_and_end_of_deal(name, options, seed, rnd):
    state, outs = random_deal(name, seed, rnd, options)
    final = engine.final_view(state)
    if final["void"]:
        return
    roles, solo, multiplier = final["roles"], final.get("solo"), final["multiplier"]
    assert multiplier == spec_multiplier(name, roles, solo, final["declarations"])
    assert final["scores"] == spec_scores(name, roles, solo, final["places"], multiplier)
    assert _fixed(name, roles, solo, multiplier, outs)
    for k in range(1, len(outs)):
        assert not _fixed(name, roles, solo, multiplier, outs[:k])
    if not options.get("qiangdu", True):
        assert not any(d["type"] == "solo" for d in final["declarations"]), "no 抢独 without qiangdu"
    if options.get("must_last") == 6:
        # 憋6: every play holding a 6 emptied its player's hand
        for seat, cards, emptied in PLAYS:
            if any(c[0] == "6" for c in cards):
                assert emptied, (seat, cards)
