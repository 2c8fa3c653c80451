"""Plays (一套牌) and beating (管): RULES §1 "A play", "Beating", §4 special comparisons.

Three small layers, as in DouZero/RLCard: classify a play from card values, compare two plays,
and generate every distinct play a hand can make. Everything here works on integer values
(see cards.py), so the deal-dependent powers (campus 特王, laowang 老王) are decided by the caller
through the value mapping it passes in.
"""

from __future__ import annotations

from itertools import product

from .cards import BASE_VALUE, BJ_VALUE, SJ_VALUE, SUPER_VALUE, TWO_VALUE
from .rules import RuleSet

JOKER_FLOOR = SJ_VALUE  # values at or above this attach like jokers (挂花)


def is_valid_play(rules: RuleSet, values: tuple[int, ...]) -> bool:
    """All jokers, or naturals of one rank plus attached jokers (RULES §1); preset twists:
    laowang attaches 2s to another rank (§3.6), campus 2s carry no jokers (§3.5)."""
    if not values:
        return False
    naturals = [v for v in values if v < JOKER_FLOOR]
    if not naturals:
        return True
    if rules.twos_attach:
        main = [v for v in naturals if v != TWO_VALUE]
        return all(v == main[0] for v in main) if main else True
    first = naturals[0]
    if any(v != first for v in naturals):
        return False
    if rules.twos_carry_no_jokers and first == TWO_VALUE and len(naturals) < len(values):
        return False
    return True


def _pairwise_higher(answer: tuple[int, ...], table: tuple[int, ...]) -> bool:
    return len(answer) == len(table) and all(a > t for a, t in zip(answer, table))


def _without(values: tuple[int, ...], value: int, count: int) -> tuple[int, ...]:
    out = list(values)
    for _ in range(count):
        out.remove(value)
    return tuple(out)


def roasting_beats(answer: tuple[int, ...], table: tuple[int, ...]) -> bool:
    """烤牌 (RULES §4): the closed form. Every answer card belongs to exactly one group beating one
    card of the table: a higher card, `BJ BJ` or `SJ SJ SJ` over `BJ`, `BJ` or `SJ SJ` over `SJ`."""
    b, s = table.count(BJ_VALUE), table.count(SJ_VALUE)
    table_naturals = [v for v in table if v < JOKER_FLOOR]
    n = len(table_naturals)
    big, small = answer.count(BJ_VALUE), answer.count(SJ_VALUE)
    answer_naturals = [v for v in answer if v < JOKER_FLOOR]
    m = len(answer_naturals)
    if big + small + m != len(answer):  # a marked card above BJ has no group here
        return False
    if m and not (n and answer_naturals[0] > table_naturals[0] and m <= n):
        return False
    for x in range(b + 1):
        for y in range(s + 1):
            u_big = big - 2 * x - y
            u_small = small - 3 * (b - x) - 2 * (s - y)
            if u_big >= 0 and u_small >= 0 and u_big + u_small == n - m:
                return True
    return False


def two_kill_beats(answer: tuple[int, ...], table: tuple[int, ...]) -> bool:
    """laowang 2张大王杀1张大王 (RULES §3.6, §4): each extra answer card stands for one table `BJ` met by
    two `BJ`s; the rest must beat the rest card by card."""
    kills = len(answer) - len(table)
    if kills < 0 or kills > table.count(BJ_VALUE) or 2 * kills > answer.count(BJ_VALUE):
        return False
    return _pairwise_higher(_without(answer, BJ_VALUE, 2 * kills), _without(table, BJ_VALUE, kills))


def beats_values(rules: RuleSet, answer: tuple[int, ...], table: tuple[int, ...]) -> bool:
    """Both sorted high to low and valid plays. Bombs are judged by the caller (they need codes)."""
    if rules.roasting and table[0] >= JOKER_FLOOR:
        return roasting_beats(answer, table)
    if len(answer) == len(table):
        return _pairwise_higher(answer, table)
    if rules.two_kill:
        return two_kill_beats(answer, table)
    return False


def is_bomb(rules: RuleSet, codes) -> bool:
    """campus 炸弹: four identical suited cards, not 3s or 2s (RULES §3.5)."""
    if not rules.bombs or len(codes) != 4:
        return False
    first = codes[0]
    return all(c == first for c in codes) and first[0] not in "32" and first[1] in "SHCD"


def values_of(codes, supers=frozenset()) -> tuple[int, ...]:
    """Values sorted high to low; codes in `supers` rank above `BJ` (特王 / 老王)."""
    if supers:
        return tuple(sorted((SUPER_VALUE if c in supers else BASE_VALUE[c] for c in codes), reverse=True))
    return tuple(sorted((BASE_VALUE[c] for c in codes), reverse=True))


class HandPlays:
    """Every distinct play of one hand, built once and shared by all states that hold that hand.

    Cards of the same value are interchangeable unless they carry information (`specials`: the
    guard card `SJ*`, the called card), so each distinct play is listed once with a canonical
    choice of codes. `plays` holds `(values, codes, has_must_last)` tuples; `by_size` groups them.
    """

    __slots__ = ("plays", "by_size", "bombs", "hand_size")

    def __init__(self, rules: RuleSet, hand: tuple[str, ...], specials: frozenset, supers: frozenset):
        groups: dict[tuple, list[str]] = {}
        for code in hand:
            value = SUPER_VALUE if code in supers else BASE_VALUE[code]
            key = (value, code if code in specials else "")
            groups.setdefault(key, []).append(code)
        jokers = [codes for (value, _), codes in groups.items() if value >= JOKER_FLOOR]
        twos = [codes for (value, _), codes in groups.items() if value == TWO_VALUE]
        naturals_by_value: dict[int, list[list[str]]] = {}
        for (value, _), codes in groups.items():
            if value < JOKER_FLOOR:
                naturals_by_value.setdefault(value, []).append(codes)

        joker_combos = _combos(jokers)
        plays: list[tuple] = []
        must_last = rules.must_last
        for value, kinds in naturals_by_value.items():
            attachments = joker_combos
            if rules.twos_carry_no_jokers and value == TWO_VALUE:
                attachments = [()]
            elif rules.twos_attach and value != TWO_VALUE and twos:
                attachments = [j + t for j in joker_combos for t in _combos(twos)]
            for base in _combos(kinds):
                if not base:
                    continue
                for extra in attachments:
                    codes = extra + base
                    vals = values_of(codes, supers)
                    plays.append((vals, codes, must_last is not None and must_last in vals))
        for codes in joker_combos:
            if codes:
                plays.append((values_of(codes, supers), codes, False))
        by_size: dict[int, list[tuple]] = {}
        for play in plays:
            by_size.setdefault(len(play[1]), []).append(play)
        self.plays = plays
        self.by_size = by_size
        self.hand_size = len(hand)
        self.bombs = []
        if rules.bombs:
            counts: dict[str, int] = {}
            for code in hand:
                counts[code] = counts.get(code, 0) + 1
            self.bombs = [(code,) * 4 for code, count in counts.items()
                          if count >= 4 and is_bomb(rules, (code,) * 4) and code not in supers]

    def leads(self) -> list[tuple]:
        size = self.hand_size
        return [p for p in self.plays if not p[2] or len(p[1]) == size]

    def answers(self, rules: RuleSet, table_values: tuple[int, ...], table_is_bomb: bool) -> list[tuple]:
        if table_is_bomb:
            return []
        size = self.hand_size
        n = len(table_values)
        grows = (rules.roasting and table_values[0] >= JOKER_FLOOR) or (rules.two_kill and BJ_VALUE in table_values)
        if grows:
            candidates = [p for k, ps in self.by_size.items() if k >= n for p in ps]
        else:
            candidates = self.by_size.get(n, ())
        found = [p for p in candidates
                 if (not p[2] or len(p[1]) == size) and beats_values(rules, p[0], table_values)]
        if self.bombs:
            seen = {p[1] for p in found}
            found += [(values_of(b), b, False) for b in self.bombs if b not in seen]
        return found


def _combos(kinds: list[list[str]]) -> list[tuple[str, ...]]:
    """Every choice of a prefix of each kind's codes (kinds are interchangeable within)."""
    if not kinds:
        return [()]
    out = []
    for counts in product(*(range(len(codes) + 1) for codes in kinds)):
        chosen: tuple[str, ...] = ()
        for codes, count in zip(kinds, counts):
            chosen += tuple(codes[:count])
        out.append(chosen)
    return out


_CACHE: dict[tuple, HandPlays] = {}
_CACHE_LIMIT = 20000


def hand_plays(rules: RuleSet, hand: tuple[str, ...], specials: frozenset, supers: frozenset) -> HandPlays:
    key = (rules.key, hand, specials, supers)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        found = _CACHE[key] = HandPlays(rules, hand, specials, supers)
    return found
