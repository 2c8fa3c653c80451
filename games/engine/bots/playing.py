"""Play (docs/rules.md §1 "Turn flow"): the heuristics of strong climbing-game bots.

* A hand is its one-rank sets (a rank's naturals together); the fewer sets, the sooner out.
* Lead the set holding the lowest card, whole, jokers kept back. Near the end, lead the set least
  likely to be beaten first, so the lead comes back for the last one.
* Follow with the cheapest answer: a whole set (one set fewer) before a broken one, low before high,
  naturals before jokers; pass when winning the lead is not worth what the answer spends.
* Never beat a known partner's play (he keeps the lead for our side) unless it takes me out.
* Against an opponent who is nearly out, spend jokers and 2s, and lead sets larger than his hand,
  which he cannot answer (an answer has as many cards as the play, §1 "Beating").
* 憋6 / 憋三 (must-last): those cards only go in the last play; the engine lists no other way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import TWO_VALUE
from ..plays import JOKER_FLOOR
from ..state import Action
from .odds import beaten_chance
from .reading import Reading, play_values
from .strength import JOKER_CONTROL

LEAD_WORTH = 1.0  # winning a trick lets me lead one more set away
BREAK_COST = 0.4  # an answer taken out of a larger set leaves that set weaker
TWO_COST = 0.25  # 2s win leads back when led later; spending one as a broken answer costs some
ATTACHED_TWO_COST = 0.5  # a laowang 2 hung on another set is spent like a weak joker
PLAY_MARGIN = 0.3  # an answer must gain at least this much over passing
URGENT_BONUS = 2.0  # stopping an opponent who is nearly out is worth about two controls
NEARLY_OUT = 3  # an opponent with this many cards or fewer can go out on his next lead
SAFE_LEAD = 0.25  # near the end, a set beaten less often than this is led first
PASS = Action("pass")


@dataclass(frozen=True)
class Candidate:
    action: Action
    values: tuple[int, ...]
    rank: int | None  # the naturals' value; None for jokers alone
    jokers: tuple[int, ...]
    attached_twos: int  # laowang: 2s hung on a set of another rank (§3.6)
    whole: bool  # takes every natural of its rank from my hand
    marked: int  # marked or called codes it shows (playing them reveals a role)

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def spent(self) -> int:
        """Cards it uses up beyond its own rank: jokers, and laowang's attached 2s."""
        return len(self.jokers) + self.attached_twos


def _candidate(reading: Reading, entry: dict, called: str | None) -> Candidate:
    cards = tuple(entry["cards"])
    values = play_values(reading, cards)
    naturals = [v for v in values if v < JOKER_FLOOR]
    main = [v for v in naturals if v != TWO_VALUE] or naturals
    jokers = tuple(v for v in values if v >= JOKER_FLOOR)
    rank = main[0] if main else None
    whole = rank is not None and len(main) == reading.naturals[rank]
    marked = sum(1 for c in cards if c.endswith("*") or c == called)
    return Candidate(Action("play", cards), values, rank, jokers, len(naturals) - len(main), whole, marked)


def _opponent_seats(reading: Reading) -> frozenset:
    return reading.holding - reading.partners


def _dangerous(reading: Reading) -> list[int]:
    """Seats likely against me that could go out on their next lead."""
    return [s for s in reading.holding
            if reading.opponent_chance(s) >= 0.5 and reading.counts[s] <= NEARLY_OUT]


def choose_play(reading: Reading, view: dict) -> Action:
    """The play (or pass) for the seat to act. A leader's list can hold thousands of plays (every
    way to attach jokers and 2s), so plays are looked at by size first and built only when needed."""
    entries = [e for e in view["legal_actions"] if e["type"] == "play"]
    if not entries:
        return PASS
    size = len(reading.hand)
    out = next((e for e in entries if len(e["cards"]) == size), None)
    if out is not None:
        return Action("play", tuple(out["cards"]))  # out: always the best a play can do
    called = view.get("called_card")
    if view.get("table") is None:
        return _lead(reading, entries, called).action
    candidates = [_candidate(reading, e, called) for e in entries]
    chosen = _follow(reading, view["table"], candidates)
    return chosen.action if chosen is not None else PASS


def _sized(reading: Reading, entries: list[dict], called: str | None, keep) -> list[Candidate]:
    return [_candidate(reading, e, called) for e in entries if keep(len(e["cards"]))]


def _one_rank(cards: list[str]) -> bool:
    """Naturals of one printed rank only (joker codes start with S or B, which no rank is)."""
    rank = cards[0][0]
    return rank not in "SB" and all(c[0] == rank for c in cards)


def _group_leads(reading: Reading, entries: list[dict], called: str | None) -> list[Candidate]:
    """Each rank's whole set of naturals, without jokers."""
    sizes = {n for v, n in reading.naturals.items() if v != reading.must_last}
    found = [_candidate(reading, e, called) for e in entries
             if len(e["cards"]) in sizes and _one_rank(e["cards"])]
    return [c for c in found if c.whole and not c.jokers and c.rank != reading.must_last]


def _lead(reading: Reading, entries: list[dict], called: str | None) -> Candidate:
    groups = sorted(_group_leads(reading, entries, called), key=lambda c: (c.rank, c.marked))
    danger = _dangerous(reading)
    if danger:
        return _lead_against(reading, entries, called, groups, danger)
    partner_near = [s for s in reading.holding & reading.partners if reading.counts[s] == 1]
    if partner_near and groups:
        singles = [c for c in _sized(reading, entries, called, (1).__eq__) if not c.jokers]
        if singles:  # feed a partner with one card left: a low single he can beat
            return min(singles, key=lambda c: (not c.whole, c.rank, c.marked))
    if not groups:
        candidates = [_candidate(reading, e, called) for e in entries]
        return min(candidates, key=lambda c: (c.spent, -c.size, c.rank or 99, c.marked))
    lowest = groups[0]
    sets_left = len(groups) + (1 if reading.must_last in reading.naturals else 0)
    if sets_left <= 2:
        seats = _opponent_seats(reading)
        safest = min(groups, key=lambda c: (beaten_chance(reading, c.values, seats), c.rank))
        if safest is not lowest and beaten_chance(reading, safest.values, seats) < SAFE_LEAD:
            return safest
    return lowest


def _lead_against(reading: Reading, entries: list[dict], called: str | None, groups: list[Candidate],
                  danger: list[int]) -> Candidate:
    """Lead what the nearly-out opponents cannot answer: more cards than they hold, else the set
    they are least likely to beat."""
    biggest_hand = max(reading.counts[s] for s in danger)
    too_big = [c for c in groups if c.size > biggest_hand]
    if not too_big:  # make a set bigger with jokers (or attached 2s): one card more is enough
        too_big = [c for c in _sized(reading, entries, called, (biggest_hand + 1).__eq__)
                   if c.rank != reading.must_last]
    if too_big:
        return min(too_big, key=lambda c: (c.spent + (0 if c.whole else 1), c.rank or 99, c.marked))
    pool = groups or [_candidate(reading, e, called) for e in entries]
    return min(pool, key=lambda c: (beaten_chance(reading, c.values, danger), c.rank or 99, c.marked))


def _follow(reading: Reading, table: dict, candidates: list[Candidate]) -> Candidate | None:
    owner = table["seat"]
    if owner in reading.partners:
        return None  # his play holds the lead for our side
    against = reading.opponent_chance(owner)
    urgent = bool(_dangerous(reading)) or (against >= 0.5 and 0 < reading.counts[owner] <= NEARLY_OUT)
    seats = _opponent_seats(reading)
    best, best_score = None, None
    for c in candidates:
        gain = (1.0 if c.whole else 0.0)
        gain += (1.0 - beaten_chance(reading, c.values, seats)) * LEAD_WORTH * (0.4 + 0.6 * against)
        cost = sum(JOKER_CONTROL[v] for v in c.jokers) + ATTACHED_TWO_COST * c.attached_twos
        if c.rank is not None and not c.whole:
            cost += BREAK_COST + (TWO_COST if c.rank == TWO_VALUE else 0.0)
        score = gain - cost - 0.01 * c.marked - 0.001 * (c.rank or 20)
        if best_score is None or score > best_score:
            best, best_score = c, score
    if best_score is None:
        return None
    if best_score + (URGENT_BONUS * against if urgent else 0.0) > PLAY_MARGIN:
        return best
    return None
