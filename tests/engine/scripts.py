"""Scripted endgames with short hands (docs/rules.md §1 turn flow), shared by the scenario tests.

`auto_play(state, script)` lists only the plays, in the order they happen; every other turn is a
pass. A *chain* makes seats go out in a chosen order: after a prelude that disposes of the marked
cards, the chain starter leads a low card and each seat in the order beats the previous play
with its last card (ranks rise along the order), so the finishing order is exactly the one asked.
"""

from __future__ import annotations

from games import engine

from .helpers import ACCEPT, PASS, C, P, act, answer_window, deal, pview

CHAIN_RANKS = "9TJQK"


def auto_play(state, script, *, strict=True):
    """Play the listed `(seat, cards)` plays in order, passing every other turn, until the deal
    ends or the script runs out. Returns the state; a leader the script does not expect fails."""
    script = list(script)
    guard = 0
    while state.phase == "play" and script:
        guard += 1
        assert guard < 2000
        view = pview(state)
        turn = view["turn"]
        seat, cards = script[0]
        if seat == turn:
            script.pop(0)
            state = act(state, turn, P(cards) if isinstance(cards, str) else cards)
        else:
            assert view["table"] is not None, f"seat {turn} leads, but the script expects seat {seat}"
            state = act(state, turn, PASS)
    if strict:
        assert state.phase in ("over", "void") or not script, (state.phase, script)
    return state


def finish(state, order, chain):
    """Keep playing the chain plays of `order` (seats out in that order)."""
    return auto_play(state, [(s, chain[s]) for s in order], strict=False)


def chain_cards(order, suit="S"):
    return {seat: CHAIN_RANKS[i] + suit for i, seat in enumerate(order)}


def fixed_guard_hands(emperor, guard, order, *, lead_extra=True):
    """Hands for a fixed-guard 2 v 3 deal (weihai, lianzhong_simple, pagat): emperor BJ*, guard SJ*.

    Prelude: the emperor leads 7S, the guard plays SJ*, the emperor takes the trick with BJ* and
    leads 7H (or his last card when he is to go out first)."""
    chain = chain_cards(order)
    hands = [[chain[s]] for s in range(5)]
    hands[emperor] += ["BJ*", "7S"] + (["7H"] if order[0] != emperor else [])
    hands[guard] += ["SJ*"]
    prelude = [(emperor, "7S"), (guard, "SJ*"), (emperor, "BJ*")]
    if order[0] != emperor:
        prelude.append((emperor, "7H"))
    return hands, prelude, chain


def solo_hands(emperor, order):
    """Hands for a solo by the holder of BJ* and SJ* (weihai, lianzhong_simple, pagat)."""
    chain = chain_cards(order)
    hands = [[chain[s]] for s in range(5)]
    hands[emperor] += ["BJ*", "SJ*"] + (["7H"] if order[0] != emperor else [])
    prelude = [(emperor, "BJ* SJ*")]
    if order[0] != emperor:
        prelude.append((emperor, "7H"))
    return hands, prelude, chain


def called_guard_hands(emperor, guard, order, *, called="8H", solo=False, bj=True):
    """Hands for a called-guard deal (lianzhong_classic, wuren): the emperor calls `called`, of
    which he holds three (four for a hidden solo); the guard holds the fourth.

    Prelude: the emperor leads his three called cards, then 7S; the guard plays his called card,
    the emperor takes the trick with BJ* and leads 7H (or his last card)."""
    chain = chain_cards(order)
    hands = [[chain[s]] for s in range(5)]
    first = order[0] == emperor
    if solo:
        hands[emperor] += [called] * 4 + (["BJ*"] if bj else []) + ([] if first else ["7H"])
        prelude = [(emperor, " ".join(["BJ*"] + [called] * 4))]
        if not first:
            prelude.append((emperor, "7H"))
        return hands, prelude, chain
    hands[emperor] += [called] * 3 + (["BJ*"] if bj else []) + ["7S"] + ([] if first else ["7H"])
    hands[guard] += [called]
    prelude = [(emperor, " ".join([called] * 3)), (emperor, "7S"), (guard, called), (emperor, "BJ*")]
    if not first:
        prelude.append((emperor, "7H"))
    return hands, prelude, chain


def start_fixed(preset, hands, emperor, *, how=ACCEPT, answers=(), **kwargs):
    """Deal, let the BJ* holder `emperor` answer `how`, answer the windows (`answers`: one dict per
    window, seat -> Action; missing seats stay) and return the state in play."""
    state = deal(preset, hands, **kwargs)
    assert engine.to_act(state) == (emperor,), engine.to_act(state)
    state = act(state, emperor, how)
    answers = list(answers)
    while state.phase in ("solo_window", "declaration_window", "kick_window"):
        state = answer_window(state, answers.pop(0) if answers else None)
    assert state.phase == "play", state.phase
    return state


def start_called(preset, hands, emperor, card, *, solo=False, answers=(), **kwargs):
    state = deal(preset, hands, **kwargs)
    assert engine.to_act(state) == (emperor,), engine.to_act(state)
    state = act(state, emperor, ACCEPT)
    assert state.phase == "call", state.phase
    state = act(state, emperor, engine.Action("solo", card=card) if solo else C(card))
    answers = list(answers)
    while state.phase in ("solo_window", "declaration_window", "kick_window"):
        state = answer_window(state, answers.pop(0) if answers else None)
    assert state.phase == "play", state.phase
    return state
