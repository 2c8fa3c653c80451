"""What a bot reads from its seat view (docs/client-guide.md §3): its hand as card values, the counts, who is
on
its side. Built from the served view dict only, so a bot knows exactly what a player knows.

Sides (docs/rules.md §1 "Teams", "Visibility"): a seat's partners and opponents are only those the view's
`roles` name; a seat whose role the viewer may not know is neither (a commoner does not know which
other seat holds a hidden guard).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..cards import BASE_VALUE, SUPER_VALUE
from ..plays import JOKER_FLOOR, values_of
from ..rules import RuleSet, preset


@lru_cache(maxsize=64)
def _rules(name: str, options: tuple) -> RuleSet:
    return preset(name, **dict(options))


@lru_cache(maxsize=64)
def deck_counts(rules: RuleSet) -> tuple[Counter, int]:
    """Copies of each natural value in the whole deck, and how many jokers it holds."""
    naturals: Counter = Counter()
    jokers = 0
    for code in rules.deck:
        value = BASE_VALUE[code]
        if value >= JOKER_FLOOR:
            jokers += 1
        else:
            naturals[value] += 1
    return naturals, jokers


def count_of(shown) -> int:
    """laowang shows counts above ten as ">10" (docs/rules.md §3.6): read that as eleven."""
    if isinstance(shown, int):
        return shown
    return int(str(shown).lstrip(">")) + 1


def supers_of(rules: RuleSet, seat: int | None, emperor: int | None, called_card: str | None) -> frozenset:
    """Codes a seat plays above BJ: laowang 老王, campus 特王 outside the emperor's hand (§3.5, §3.6)."""
    if not rules.guard_card_super or seat is None:
        return frozenset()
    if rules.guard_mode == "fixed":
        return frozenset(("SJ*",))
    if called_card is not None and seat != emperor:
        return frozenset((called_card,))
    return frozenset()


def _sides(roles: list, seat: int) -> tuple[frozenset, frozenset]:
    mine = roles[seat]
    others = [s for s in range(5) if s != seat]
    if mine is None:
        return frozenset(), frozenset()
    if mine == "soloist":
        return frozenset(), frozenset(others)
    soloist = next((s for s in others if roles[s] == "soloist"), None)
    if soloist is not None:
        return frozenset(s for s in others if s != soloist), frozenset((soloist,))
    if mine in ("emperor", "guard"):
        partners = frozenset(s for s in others if roles[s] in ("emperor", "guard"))
        return partners, frozenset(s for s in others if roles[s] == "commoner")
    partners = frozenset(s for s in others if roles[s] == "commoner")
    return partners, frozenset(s for s in others if roles[s] in ("emperor", "guard"))


@dataclass(frozen=True)
class Reading:
    rules: RuleSet
    phase: str
    seat: int
    hand: tuple[str, ...]
    values: tuple[int, ...]  # of `hand`, in the same order
    naturals: Counter  # natural value -> copies held (the must-last rank included)
    jokers: tuple[int, ...]  # values of held jokers and marked cards above BJ, high to low
    counts: tuple[int, ...]
    holding: frozenset  # other seats that still hold cards
    partners: frozenset
    opponents: frozenset
    role: str | None
    supers: frozenset  # my codes that rank above BJ
    unseen_share: tuple[float, ...]  # per seat: chance that a card I cannot see is in its hand
    unseen_naturals: Counter  # natural value -> copies not in my hand
    unseen_jokers: int

    @property
    def must_last(self) -> int | None:
        return self.rules.must_last

    def opponent_chance(self, seat: int) -> float:
        """How likely `seat` plays against me, from what the view says."""
        if seat in self.opponents:
            return 1.0
        if seat in self.partners or self.role is None:
            return 0.0 if seat in self.partners else 0.5
        unknown = 4 - len(self.partners) - len(self.opponents)
        if self.role == "commoner":
            return 1.0 / unknown  # one of them is the hidden guard
        return (unknown - 1) / unknown if unknown else 1.0  # emperor: one of them is his guard


def read_view(view: dict) -> Reading:
    rules = _rules(view["preset"], tuple(sorted((view.get("options") or {}).items())))
    seat = view["seat"]
    hand = tuple(view["hand"])
    supers = supers_of(rules, seat, view.get("emperor"), view.get("called_card"))
    values = tuple(SUPER_VALUE if c in supers else BASE_VALUE[c] for c in hand)
    naturals = Counter(v for v in values if v < JOKER_FLOOR)
    jokers = tuple(sorted((v for v in values if v >= JOKER_FLOOR), reverse=True))
    counts = tuple(count_of(c) for c in view["counts"])
    places = view.get("places") or [None] * 5
    holding = frozenset(s for s in range(5) if s != seat and counts[s] > 0 and places[s] is None)
    roles = view.get("roles") or [None] * 5
    partners, opponents = _sides(roles, seat)
    deck_naturals, deck_jokers = deck_counts(rules)
    unseen_naturals = Counter({v: n - naturals[v] for v, n in deck_naturals.items()})
    # Cards already played are not in the view: a card I cannot see is in seat s's hand with chance
    # counts[s] / (deck - my hand), as if the played cards had been drawn at random.
    unseen_total = max(len(rules.deck) - len(hand), 1)
    share = tuple(0.0 if s == seat else counts[s] / unseen_total for s in range(5))
    return Reading(
        rules=rules, phase=view["phase"], seat=seat, hand=hand, values=values, naturals=naturals,
        jokers=jokers, counts=counts, holding=holding, partners=partners, opponents=opponents,
        role=roles[seat], supers=supers, unseen_share=share, unseen_naturals=unseen_naturals,
        unseen_jokers=max(deck_jokers - len(jokers), 0),
    )


def play_values(reading: Reading, cards) -> tuple[int, ...]:
    """Values of one of my plays, high to low."""
    return values_of(cards, reading.supers)

