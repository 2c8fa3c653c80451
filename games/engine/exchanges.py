"""Pre-play exchanges (docs/rules.md §2.2): tribute owed by the previous deal, then buying a 3 (campus),
then penalty discards (laowang 串牌, docs/rules.md §3.6).

All happen right after the deal, before emperor selection. Each hand-over is logged twice: a
public event with the count, and an event with the cards `private_to` the giver and receiver.
"""

from __future__ import annotations

from .cards import BASE_VALUE, is_joker, sort_codes
from .state import Tribute


def _highest(hand: list[str], count: int, jokers: bool) -> list[str]:
    """The giver's `count` highest cards; without `jokers`, his highest non-jokers (不进王)."""
    ordered = sorted((c for c in hand if jokers or not is_joker(c)), key=lambda c: -BASE_VALUE[c])
    return ordered[:count]


def apply_tribute(hands: list[list[str]], plan: Tribute, events: list[dict]) -> None:
    """Hand over the tribute of `plan` (scoring.tribute_plan, carried in the previous final_view).

    Givers give their highest cards; takers take one card at a time in finishing order, highest
    first (docs/rules.md §3.4, §3.6, §3.7); wuren's guard takes the middle card of three.
    """
    gives = [(seat, count) for seat, count in plan.gives if count > 0]
    takes = [(seat, count) for seat, count in plan.takes if count > 0]
    if not gives or not takes:
        return
    pool: list[tuple[str, int]] = []
    for seat, count in gives:
        for code in _highest(hands[seat], count, plan.jokers):
            hands[seat].remove(code)
            pool.append((code, seat))
    pool.sort(key=lambda item: -BASE_VALUE[item[0]])
    received: list[tuple[int, tuple[str, int]]] = []
    middle = plan.guard_middle
    if middle is not None and len(pool) == 3 and len(takes) == 2:
        other = next(seat for seat, _ in takes if seat != middle)
        received = [(other, pool[0]), (middle, pool[1]), (other, pool[2])]
    else:
        quota = dict(takes)
        order = [seat for seat, _ in takes]
        index = 0
        while index < len(pool) and any(quota.values()):
            for seat in order:
                if quota[seat] and index < len(pool):
                    received.append((seat, pool[index]))
                    quota[seat] -= 1
                    index += 1
    by_pair: dict[tuple[int, int], list[str]] = {}
    for taker, (code, giver) in received:
        hands[taker].append(code)
        by_pair.setdefault((giver, taker), []).append(code)
    # Cards a giver had to give but no taker could take go back (only with incomplete hands).
    for code, giver in pool[len(received):]:
        hands[giver].append(code)
    for (giver, taker), codes in by_pair.items():
        events.append({"type": "tribute", "seat": giver, "to": taker, "count": len(codes)})
        events.append({"type": "tribute_cards", "seat": giver, "to": taker, "cards": list(sort_codes(codes)),
                       "private_to": sorted({giver, taker})})


def buy_threes(hands: list[list[str]], start_seat: int, events: list[dict]) -> None:
    """campus 无三用二买，无二用王买，无二无王直接送一张 (docs/rules.md §3.5): every player ends with one 3.

    **D:** buyers in seat order from the start seat; the seller is the nearest player after the
    buyer (play order) holding two or more; payment is a 2, else `SJ` before `BJ` (never `BJ*`).
    """
    for offset in range(5):
        buyer = (start_seat + offset) % 5
        if any(c[0] == "3" for c in hands[buyer]):
            continue
        seller = next(((buyer + step) % 5 for step in range(1, 5)
                       if sum(c[0] == "3" for c in hands[(buyer + step) % 5]) >= 2), None)
        if seller is None:
            continue
        three = sort_codes(c for c in hands[seller] if c[0] == "3")[0]
        hands[seller].remove(three)
        hands[buyer].append(three)
        payment = next((c for c in sort_codes(hands[buyer]) if c[0] == "2"), None)
        if payment is None:
            payment = next((c for c in ("SJ", "BJ") if c in hands[buyer]), None)
        if payment is not None:
            hands[buyer].remove(payment)
            hands[seller].append(payment)
        events.append({"type": "buy_three", "seat": buyer, "from": seller, "paid": payment is not None})
        events.append({"type": "buy_three_cards", "seat": buyer, "from": seller, "card": three,
                       "payment": payment, "private_to": sorted({buyer, seller})})


def apply_penalty_discards(hands: list[list[str]], seats: tuple[int, ...], events: list[dict]) -> tuple:
    """docs/rules.md §3.6 (串牌, "下一局開局前自罰一張2，無2遞減"): each offender discards a 2, else his
    highest
    non-joker, out of play, once per entry of `seats` (a seat named twice discards two cards).

    **D:** after the tribute: the seed's "before the next deal starts" is the last step before play
    (the emperor selection), and the tribute is part of dealing. The table learns that a seat
    discarded (`penalty_discard`), only the offender which card (`penalty_discard_card`); the
    final view shows them all. Returns the (seat, card) pairs discarded.
    """
    discarded = []
    for seat in seats:
        highest = _highest(hands[seat], 1, jokers=False)
        if not highest:  # a hand of jokers only has nothing to give up
            continue
        card = highest[0]
        hands[seat].remove(card)
        discarded.append((seat, card))
        events.append({"type": "penalty_discard", "seat": seat})
        events.append({"type": "penalty_discard_card", "seat": seat, "card": card, "private_to": [seat]})
    return tuple(discarded)
