"""Plays (一套牌) and beating (管): docs/rules.md §1 "A play", "Beating", §4 special comparisons.

Three small layers, as in DouZero/RLCard: classify a play from card values, compare two plays,
and generate every distinct play a hand can make. Everything here works on integer values
(see cards.py), so the deal-dependent powers (campus 特王, laowang 老王) are decided by the caller
through the value mapping it passes in.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import groupby
from operator import gt, lt

from .cards import BASE_VALUE, BJ_VALUE, SJ_VALUE, SUPER_VALUE, TWO_VALUE
from .rules import RuleSet
from .state import Action, ActionType

JOKER_FLOOR = SJ_VALUE  # values at or above this attach like jokers (挂花)


def is_valid_play(rules: RuleSet, values: tuple[int, ...]) -> bool:
    """All jokers, or naturals of one rank plus attached jokers (docs/rules.md §1); preset twists:
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
    return len(answer) == len(table) and all(map(gt, answer, table))


def _without(values: tuple[int, ...], value: int, count: int) -> tuple[int, ...]:
    out = list(values)
    for _ in range(count):
        out.remove(value)
    return tuple(out)


def roasting_beats(answer: tuple[int, ...], table: tuple[int, ...]) -> bool:
    """烤牌 (docs/rules.md §4): the closed form. Every answer card belongs to exactly one group beating one
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
    """laowang 2张大王杀1张大王 (docs/rules.md §3.6, §4): each extra answer card stands for one table `BJ` met
    by
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
    """campus 炸弹: four identical suited cards, not 3s or 2s (docs/rules.md §3.5)."""
    if not rules.bombs or len(codes) != 4:
        return False
    first = codes[0]
    return all(c == first for c in codes) and first[0] not in "32" and first[1] in "SHCD"


def values_of(codes, supers=frozenset()) -> tuple[int, ...]:
    """Values sorted high to low; codes in `supers` rank above `BJ` (特王 / 老王)."""
    if supers:
        return tuple(sorted((SUPER_VALUE if c in supers else BASE_VALUE[c] for c in codes), reverse=True))
    return tuple(sorted((BASE_VALUE[c] for c in codes), reverse=True))


class Choices:
    """Every choice of some cards from interchangeable kinds, as (codes, values high to low), the
    empty choice first, also grouped by size: the attachable cards of a hand, or a rank's naturals.

    Tuples throughout, no lists: a Choices is kept (interned) and so outlives the garbage
    collector's young generations, and a tuple of strings and ints is one the collector stops
    watching, where each list would be one more container its full collections go through."""

    __slots__ = ("kinds", "kind_values", "items", "codes", "by_size", "sizes")

    def __init__(self, kinds: tuple[tuple[str, ...], ...], kind_values: tuple[int, ...]):
        self.kinds = kinds
        self.kind_values = kind_values
        if len(kinds) == 1:
            self._one_kind(kinds[0], kind_values[0])
            return
        # In product order (the first kind's count changes slowest), built kind by kind: every
        # choice so far, extended by none up to all cards of the next kind.
        items = [((), ())]
        for kind, value in zip(kinds, kind_values):
            takes = [(kind[:count], (value,) * count) for count in range(len(kind) + 1)]
            items = [(codes + more, values + more_values)
                     for codes, values in items for more, more_values in takes]
        if any(map(lt, kind_values, kind_values[1:])):  # values high to low within each choice
            items = [(codes, tuple(sorted(values, reverse=True))) for codes, values in items]
        self.items = tuple(items)
        self.codes = tuple([codes for codes, _ in items])  # what a lead attaches, in listing order
        # Sizes ascending: a follower stops at the table's size. `items` come in product order,
        # where a larger choice of one kind can precede a smaller choice of another.
        by_size: dict[int, list[tuple]] = {}
        for item in sorted(items, key=_codes_size):  # stable: product order within a size
            by_size.setdefault(len(item[0]), []).append(item)
        self.by_size = {size: tuple(chosen) for size, chosen in by_size.items()}
        self.sizes = tuple([(size, chosen) for size, chosen in self.by_size.items() if size])  # non-empty

    def _one_kind(self, kind: tuple[str, ...], value: int) -> None:
        """The same for a single kind (most Choices: one rank's naturals, whose codes rarely recur
        across deals, so each deal makes them anew): one choice of each size, in ascending order,
        in one loop at half the instructions of the general construction."""
        items = [((), ())]
        by_size = {0: (items[0],)}
        for count in range(1, len(kind) + 1):
            item = (kind[:count], (value,) * count)
            items.append(item)
            by_size[count] = (item,)
        self.items = tuple(items)
        self.codes = tuple([codes for codes, _ in items])
        self.by_size = by_size
        self.sizes = tuple(by_size.items())[1:]


def _codes_size(item: tuple) -> int:
    return len(item[0])


def _bounded_cache_get(cache: dict, key, build, limit: int = 100000):
    found = cache.get(key)
    if found is None:
        if len(cache) >= limit:
            cache.clear()
        found = cache[key] = build()
    return found


_CHOICES: dict[tuple, Choices] = {}


def choices(kinds: tuple[tuple[str, ...], ...], kind_values: tuple[int, ...]) -> Choices:
    key = (kinds, kind_values)
    found = _CHOICES.get(key)  # inlined cache look-up: this is the hottest call of the engine
    if found is None:
        found = _bounded_cache_get(_CHOICES, key, lambda: Choices(kinds, kind_values))
    return found


_tuple_new = tuple.__new__
_PLAY = ActionType.PLAY


def play_action(codes: tuple[str, ...]) -> Action:
    """A new play: `Action(PLAY, codes)` without the Python-level `__new__` of a named tuple
    (`_rank_leads` inlines the same call).

    Plays are made anew at every listing, neither interned nor kept: a laowang lead lists hundreds
    of plays a hand of 40-odd cards can make with 2s and jokers attached, and its plays hardly recur
    (random laowang self-play still met a new one every other decision after 500,000 decisions, and
    kept them by the 100,000 in a dict, the plays of 200,000). Kept, each was a lookup in a
    dict too large for the processor's caches and an object promoted to the garbage collector's old
    generation; made and dropped within one decision, the memory of one listing serves the next."""
    return _tuple_new(Action, (_PLAY, codes, None))


def _rank_leads(naturals: Choices | None, attach: Choices) -> list[Action]:
    """Every play built on one rank (None: jokers alone): each choice of its naturals, and with each
    of them every choice of what attaches."""
    if naturals is None:
        return [_tuple_new(Action, (_PLAY, codes, None)) for codes in attach.codes[1:]]
    extras = attach.codes
    return [_tuple_new(Action, (_PLAY, extra + base, None))  # play_action, inlined: no call per play
            for base in naturals.codes[1:] for extra in extras]


# The analysed hands are kept a short while, oldest out first: a seat's next decisions reuse them,
# and an object kept longer than about a hundred decisions is promoted to the garbage collector's
# old generation, whose full collections then come sooner (with a cache of 20,000 hands they cost a
# sixth of random self-play's time; bench/engine_selfplay.py).
HANDS_KEPT = 256


def _split_kinds(codes: tuple[str, ...], specials: frozenset) -> tuple[tuple[str, ...], ...]:
    """Interchangeable cards of one value form one kind; each special code is a kind of its own."""
    if not specials or specials.isdisjoint(codes):
        return (codes,)
    plain = tuple(c for c in codes if c not in specials)
    own = tuple(tuple(c for c in codes if c == s) for s in sorted(specials) if s in codes)
    return ((plain,) if plain else ()) + own


class HandPlays:
    """Every distinct play of one hand.

    Cards of the same value are interchangeable unless they carry information (`specials`: the
    marked cards, the called card; and a campus bomb's identical codes), so each distinct play is
    listed once with a canonical choice of codes. A leader's list is assembled from cached per-rank
    lists; a follower's is generated for the table's size only, skipping ranks too low to beat it.
    """

    # A rank's value (high to low), its naturals' choices and what attaches to them are three parallel tuples,
    # not a list of triples: a hand analysed is kept (cached) and so outlives the garbage
    # collector's young generations, and every long-lived container makes its full collections
    # come sooner (they were a quarter of self-play's time).
    __slots__ = ("values", "naturals", "attaches", "jokers", "bombs", "hand_size", "must_last")

    def __init__(self, rules: RuleSet, hand: tuple[str, ...], specials: frozenset, supers: frozenset):
        plain_hand = tuple(c for c in hand if c not in supers) if supers else hand
        joker_kinds, joker_values = _super_kinds(hand, supers)
        values: list[int] = []
        naturals: list[Choices] = []
        bombs: list[tuple[str, ...]] = []
        for value, group in groupby(plain_hand, BASE_VALUE.__getitem__):  # hands are sorted high to low
            codes = tuple(group)
            if value >= JOKER_FLOOR:
                kinds = _split_kinds(codes, specials)
                joker_kinds += kinds
                joker_values += (value,) * len(kinds)
            else:
                rank_bombs = _bombs_of(value, codes) if rules.bombs else ()
                kinds = _split_kinds(codes, _with_bomb_codes(specials, rank_bombs))
                values.append(value)
                naturals.append(choices(kinds, (value,) * len(kinds)))
                bombs += rank_bombs
        self._assemble(rules, len(hand), choices(joker_kinds, joker_values), tuple(values), tuple(naturals),
                       tuple(bombs))

    def _assemble(self, rules: RuleSet, hand_size: int, jokers: Choices, values: tuple[int, ...],
                  naturals: tuple[Choices, ...], bombs: tuple[tuple[str, ...], ...]) -> None:
        self.jokers = jokers
        self.values = values
        self.naturals = naturals
        attaches = (jokers,) * len(values)
        if TWO_VALUE in values and (rules.twos_attach or rules.twos_carry_no_jokers):
            two = values.index(TWO_VALUE)
            if rules.twos_carry_no_jokers:  # campus: 2s alone
                attaches = attaches[:two] + (choices((), ()),) + attaches[two + 1:]
            else:  # laowang: 2s attach to every other rank
                twos = naturals[two]
                with_twos = choices(jokers.kinds + twos.kinds, jokers.kind_values + twos.kind_values)
                attaches = (with_twos,) * two + (jokers,) + (with_twos,) * (len(values) - two - 1)
        self.attaches = attaches
        self.hand_size = hand_size
        self.must_last = rules.must_last
        self.bombs = bombs

    def after_play(self, rules: RuleSet, hand: tuple[str, ...], played: tuple[str, ...], specials: frozenset,
                   supers: frozenset) -> HandPlays:
        """The plays of `hand` (this hand less `played`), rebuilding only what the play touched: one
        rank and perhaps the jokers; every other rank keeps its (shared, cached) choices."""
        changed = {SUPER_VALUE if c in supers else BASE_VALUE[c] for c in played}
        jokers = self.jokers
        if max(changed) >= JOKER_FLOOR:
            kinds, joker_values = _super_kinds(hand, supers)
            plain_jokers = _without_supers(_value_range(hand, BJ_VALUE, JOKER_FLOOR), supers)
            for value, group in groupby(plain_jokers, BASE_VALUE.__getitem__):
                split = _split_kinds(tuple(group), specials)
                kinds += split
                joker_values += (value,) * len(split)
            jokers = choices(kinds, joker_values)
        values, naturals = self.values, self.naturals
        bombs = self.bombs
        for value in changed.intersection(values):
            index = values.index(value)
            codes = _without_supers(_value_range(hand, value, value), supers)
            if bombs:
                bombs = tuple(b for b in bombs if BASE_VALUE[b[0]] != value)
            if not codes:
                values = values[:index] + values[index + 1:]
                naturals = naturals[:index] + naturals[index + 1:]
                continue
            rank_bombs = _bombs_of(value, codes) if rules.bombs else ()
            kinds = _split_kinds(codes, _with_bomb_codes(specials, rank_bombs))
            naturals = naturals[:index] + (choices(kinds, (value,) * len(kinds)),) + naturals[index + 1:]
            bombs += tuple(rank_bombs)
        derived = object.__new__(HandPlays)
        derived._assemble(rules, len(hand), jokers, values, naturals, bombs)
        return derived

    def lead_actions(self) -> list[Action]:
        """Built at every call, not kept (see `play_action`)."""
        out: list[Action] = []
        for value, naturals, attach in zip(self.values, self.naturals, self.attaches):
            plays = _rank_leads(naturals, attach)
            if value == self.must_last:  # 憋6 / 憋三: only as the last play
                plays = [a for a in plays if len(a.cards) == self.hand_size]
            out += plays
        if len(self.jokers.items) > 1:
            out += _rank_leads(None, self.jokers)
        return out

    def answers(self, rules: RuleSet, table_values: tuple[int, ...], table_is_bomb: bool) -> list[Action]:
        """Every play that beats `table_values` (a bomb on the table: none)."""
        if table_is_bomb:
            return []
        longest = len(table_values)
        if rules.roasting or rules.two_kill:
            longest += _extra_answer_cards(rules, table_values)
        if longest > len(table_values):
            found = self._longer_answers(rules, table_values, longest)
        else:
            found = self._same_size_answers(rules, table_values)
        n = len(table_values)
        if longest == n:  # the jokers' choices of the table's size (by_size keeps their listing order)
            candidates = self.jokers.by_size.get(n, ())
        else:
            candidates = [item for item in self.jokers.items[1:] if n <= len(item[0]) <= longest]
        for codes, values in candidates:
            if beats_values(rules, values, table_values):
                found.append(play_action(codes))
        if self.bombs:
            seen = {a.cards for a in found}
            found += [play_action(b) for b in self.bombs if b not in seen]
        return found

    def _same_size_answers(self, rules: RuleSet, table_values: tuple[int, ...]) -> list[Action]:
        """Card-by-card beating (docs/rules.md §1) of plays with naturals. Attached cards (jokers, laowang 2s)
        rank above the naturals they join, so an answer of m attached cards and k = n - m naturals
        beats the table when the attached cards beat its m highest cards and the rank beats its
        (m+1)-th: the attached choices are checked once per call, not once per rank."""
        n = len(table_values)
        lowest = table_values[-1]
        size = self.hand_size
        found: list[Action] = []
        checked_attach = None  # ranks share one attach choice (two in laowang, campus): check it once
        beating_extras: list = []
        for value, naturals, attach in zip(self.values, self.naturals, self.attaches):
            if value <= lowest:
                break  # each natural must beat a table card, the lowest included (ranks go high to low)
            if value == self.must_last and n != size:
                continue  # 憋6 / 憋三: only a play that empties the hand
            if attach is not checked_attach:
                checked_attach, beating_extras = attach, [None] * n
            for k, bases in naturals.sizes:
                if k > n:
                    break
                attached = n - k
                if value <= table_values[attached]:
                    continue
                extras = beating_extras[attached]
                if extras is None:
                    top = table_values[:attached]
                    extras = beating_extras[attached] = [
                        item for item in attach.by_size.get(attached, ()) if all(map(gt, item[1], top))]
                for base_codes, _ in bases:
                    for codes, _ in extras:
                        found.append(play_action(codes + base_codes))
        return found

    def _longer_answers(self, rules: RuleSet, table_values: tuple[int, ...], longest: int) -> list[Action]:
        """Answers where roasting or two-kill allow more cards than the table: checked one by one."""
        n = len(table_values)
        lowest = table_values[-1]
        size = self.hand_size
        found: list[Action] = []
        for value, naturals, attach in zip(self.values, self.naturals, self.attaches):
            if value <= lowest:
                break  # each natural must beat a table card, the lowest included (ranks go high to low)
            must_last = value == self.must_last
            for k, bases in naturals.sizes:
                if k > n:
                    break  # each natural answers one card of the table
                extras = [c for m, cs in attach.by_size.items() if n - k <= m <= longest - k for c in cs]
                for base_codes, base_values in bases:
                    for codes, values in extras:
                        if must_last and k + len(codes) != size:
                            continue
                        if beats_values(rules, values + base_values, table_values):
                            found.append(play_action(codes + base_codes))
        return found


def _extra_answer_cards(rules: RuleSet, table_values: tuple[int, ...]) -> int:
    """How many more cards than the table an answer may have: roasting (§4) meets a BJ with up to
    three jokers and an SJ with up to two; two-kill (§3.6) meets a BJ with two BJs."""
    extra = 0
    big = table_values.count(BJ_VALUE)
    if rules.roasting and table_values[0] >= JOKER_FLOOR:
        extra = 2 * big + table_values.count(SJ_VALUE)
    if rules.two_kill:
        extra = max(extra, big)
    return extra


def _super_kinds(hand: tuple[str, ...], supers: frozenset) -> tuple[tuple, tuple]:
    """Cards ranked above BJ in this hand (特王 / 老王), each code a kind of its own."""
    kinds: tuple[tuple[str, ...], ...] = ()
    values: tuple[int, ...] = ()
    for code in sorted(supers):
        held = hand.count(code)
        if held:
            kinds += ((code,) * held,)
            values += (SUPER_VALUE,)
    return kinds, values


_MINUS_VALUE = {code: -value for code, value in BASE_VALUE.items()}


def _value_range(hand: tuple[str, ...], high: int, low: int) -> tuple[str, ...]:
    """The codes of values low..high of a hand: a slice, as hands are sorted high to low."""
    key = _MINUS_VALUE.__getitem__
    return hand[bisect_left(hand, -high, key=key):bisect_right(hand, -low, key=key)]


def _without_supers(codes: tuple[str, ...], supers: frozenset) -> tuple[str, ...]:
    return tuple(c for c in codes if c not in supers) if supers else codes


def _bombs_of(value: int, codes: tuple[str, ...]) -> list[tuple[str, ...]]:
    """campus bombs among one rank's codes: four identical codes, not 3s or 2s (§3.5); equal codes
    are adjacent in a sorted hand. Each is listed: a bomb's identical codes carry information."""
    if not 3 < value < TWO_VALUE or len(codes) < 4:
        return []
    return [(code,) * 4 for code, same in groupby(codes) if len(tuple(same)) >= 4]


def _with_bomb_codes(specials: frozenset, bombs) -> frozenset:
    """A code held four times or more is a kind of its own (docs/engine.md "Listing"): `9C` keeps the
    bomb `9D 9D 9D 9D`, `9D` breaks it, and four `9D` led are another play than `9C 9D 9D 9D`."""
    return specials.union(bomb[0] for bomb in bombs) if bombs else specials


_HANDS: dict[tuple, dict[frozenset, dict[frozenset, dict[tuple, HandPlays]]]] = {}
# hand after a play -> (hand before, the play): lets the next analysis derive from the last one.
_LINEAGE: dict[tuple, tuple] = {}


def note_play(rules: RuleSet, before: tuple[str, ...], after: tuple[str, ...],
              played: tuple[str, ...]) -> None:
    """Remember where a hand came from; costs a dict entry, and the work is done only if needed."""
    if len(_LINEAGE) >= 50000:
        _LINEAGE.clear()
    _LINEAGE[(rules.key, after)] = (before, played)


def played_from(rules: RuleSet, hand: tuple[str, ...]) -> tuple | None:
    """(the hand before, the cards played) when `hand` is what a play left, if still remembered."""
    return _LINEAGE.get((rules.key, hand))


def analysed_hands(rules: RuleSet, specials: frozenset, supers: frozenset) -> dict[tuple, HandPlays]:
    """The analysed hands of one context, keyed by the hand alone: a tuple of codes is no container
    the garbage collector keeps watching, a key that holds the frozensets would be."""
    try:  # nested look-ups: no key tuple to build at every listing
        return _HANDS[rules.key][specials][supers]
    except KeyError:
        if len(_HANDS) >= 100:
            _HANDS.clear()
        by_specials = _HANDS.setdefault(rules.key, {})
        by_supers = by_specials.get(specials)
        if by_supers is None:
            _drop_oldest(by_specials, CONTEXTS_KEPT)
            by_supers = by_specials[specials] = {}
        _drop_oldest(by_supers, CONTEXTS_KEPT)
        hands = by_supers[supers] = {}
        return hands


# How many contexts keep their analysed hands, oldest out first: per rule set this many sets of
# specials, each with this many sets of supers. A called card makes each deal a context of its own
# (wuren, campus, lianzhong_classic) whose hands serve no other deal; kept by the hundred, they were
# half the objects the garbage collector's full collections went through in random self-play.
CONTEXTS_KEPT = 4


def _drop_oldest(cache: dict, kept: int) -> None:
    while len(cache) >= kept:
        del cache[next(iter(cache))]  # dicts keep their insertion order


def hand_plays(rules: RuleSet, hand: tuple[str, ...], specials: frozenset, supers: frozenset) -> HandPlays:
    hands = analysed_hands(rules, specials, supers)
    found = hands.get(hand)
    if found is None:
        origin = played_from(rules, hand)
        parent = hands.get(origin[0]) if origin else None
        if parent is not None:
            found = parent.after_play(rules, hand, origin[1], specials, supers)
        else:
            found = HandPlays(rules, hand, specials, supers)
        if len(hands) >= HANDS_KEPT:
            del hands[next(iter(hands))]  # the oldest: dicts keep their insertion order
        hands[hand] = found
    return found
