"""The `hard` level (docs/bots.md "hard"): determinized search over the play phase.

The view says which cards I hold, how many every other seat holds, every play made so far this deal
(`plays`, the public log a client is shown), the roles I may know and the called card. The cards I
cannot see are dealt at random into the other hands, consistent with all of that and with what the
other seats' leads and passes say about their hands (`read_plays`: a *world*); each
candidate action is played out in the same worlds to the end of the deal by a fast rollout policy
in every seat (`Rollout`), and the candidate with the best mean score for my seat wins (another than
the normal bot's choice only by a clear margin, `choose`). The worlds are the bot's own guesses
built from the view alone: the real State and the other real hands are never read.

Cost is bounded by rollout *decisions*, not by time, so that the same view and rng always give the
same answer: whole worlds are added (every candidate in each, common random numbers) until
`DECISION_BUDGET` rollout decisions are spent or `MAX_WORLDS` worlds are played (a dealt world
counts as `WORLD_COST` decisions).

In the presets of `SEARCH_BEFORE_PLAY` the answers before play (emperor selection, the guard call,
the windows) are searched the same way (`search_before_play`): each answer applied by the engine
in a world put back into the view's phase, the other seats answering as the normal bot, the deal
played out from its first lead.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from bisect import bisect_left
from collections import Counter

from ..cards import BASE_VALUE, JOKERS, SUPER_VALUE, sort_codes
from ..machine import apply_action, legal_actions, to_act
from ..plays import JOKER_FLOOR, beats_values, is_bomb, is_valid_play, values_of
from ..scoring import deal_result
from ..state import Action, IllegalAction, Phase, State, TablePlay, Window, WindowKind
from ..tricks import supers_for
from ..views import seat_view
from .deciding import choose_answer, choose_call, choose_selection
from .reading import Reading, count_of, read_view, supers_of
from .strength import JOKER_CONTROL

DECISION_BUDGET = 90000  # rollout decisions per search (calibrated in docs/bots.md: p99 <= 250 ms CPU)
MAX_WORLDS = 150  # a cap for the cheap late decisions; the budget bounds the early ones
MAX_CANDIDATES = 5  # the normal bot's choice, pass, and the best-ranked other distinct plays
SURE = 1.0  # standard errors of gain over the normal choice needed to choose another (see `choose`)
NEARLY_OUT = 3  # an opponent with this many cards or fewer is stopped at any price
PASS = Action("pass")
JOKER_ANSWER_COST = 1.0  # joker controls a rollout player attaches to a whole set to answer (one joker)
WORLD_COST = 30  # a dealt world costs about as much CPU as this many rollout decisions
PASS_TRIES = 8  # deals tried per world for one that agrees with the passes read (see Deducer.world)


# --- candidates ------------------------------------------------------------------------------------


def _entry_action(entry: dict) -> Action:
    return Action(entry["type"], tuple(entry.get("cards") or ()), entry.get("card"))


def _shape(reading: Reading, cards: tuple[str, ...]) -> tuple:
    """What a play *does*: its size and values. Plays alike in shape differ only in suits or in a
    marked/called code, which shows a role; of those only the first listed is kept."""
    return len(cards), values_of(cards, reading.supers)


def candidates(view: dict, reading: Reading, normal: Action) -> list[Action]:
    """The distinct plays worth searching, most promising first, the normal bot's choice always in.
    Bombs (campus) and plays spending jokers are kept back unless few cards remain: the jokers and
    bombs are what wins the end of a deal, so spending them early is left to the normal heuristics."""
    hand_size = len(reading.hand)
    held = Counter(code[0] for code in reading.hand)
    seen: set = set()
    ranked = []
    for entry in view["legal_actions"]:
        action = _entry_action(entry)
        if action.type != "play":
            continue
        shape = _shape(reading, action.cards)
        if shape in seen:
            continue
        seen.add(shape)
        if len(action.cards) == hand_size:
            return [action]  # going out now is never worse than staying in (docs/bots.md)
        naturals = [c for c in action.cards if c not in JOKERS and c not in reading.supers]
        spent = len(action.cards) - len(naturals)
        bomb = is_bomb(reading.rules, action.cards)
        if (spent or bomb) and hand_size > 6:
            continue
        whole = bool(naturals) and held[naturals[0][0]] == len(naturals)
        rank = BASE_VALUE[naturals[0]] if naturals else SUPER_VALUE
        ranked.append(((spent, bomb, not whole, rank, -len(action.cards)), action))
    ranked.sort(key=lambda item: item[0])
    out = [normal]
    if view["table"] is not None and normal != PASS:
        out.append(PASS)
    for _, action in ranked:
        if len(out) >= MAX_CANDIDATES:
            break
        if action not in out and _shape(reading, action.cards) != _shape(reading, normal.cards):
            out.append(action)
    return out


# --- worlds ----------------------------------------------------------------------------------------


def _played_codes(view: dict) -> Counter:
    played: Counter = Counter()
    for _seat, cards in view.get("plays") or ():
        played.update(cards)
    return played


def _guard_card(reading: Reading, view: dict) -> str | None:
    if reading.rules.guard_mode == "fixed":
        return "SJ*"
    return view.get("called_card")


READ_LEADS_ABOVE = 3  # a lead tells its rank is the leader's lowest only while every other hand is larger
READ_LEADER_FROM = (
    8  # ... and the leader's own hand holds this many cards (a short hand leads its safest set)
)


def read_plays(view: dict, reading: Reading, counts: list[int]) -> tuple[list[int], list[tuple]]:
    """What the other seats' plays and passes say about their hands, read from `plays` (and the
    current trick's `passed`), as the normal bot (and most people) play:

    * floors, per seat: the highest rank it led as the whole set of its lowest natural. Players lead
      the set holding their lowest card unless an opponent is nearly out or few sets are left; a seat
      that led a whole set of R that way held no natural at or below R afterwards (the must-last
      rank apart), and its hand only shrinks since. 0 where nothing is read.
    * passes: (seat, owner, size, top, later) for each pass on a play of naturals: a player holding
      exactly `size` naturals of a rank above `top` answers an opponent with that whole set (it costs
      him nothing). `later` counts the naturals the seat played after that pass, which it then held.

    A play is a lead when the previous player played again (every other hand passed) or when it does
    not beat the play before it (a new trick: 接风); the seats between two plays passed on the first
    (all of them before a lead)."""
    rules = reading.rules
    plays = view.get("plays") or ()
    me = reading.seat
    floors = [0] * 5
    sizes = list(counts)
    before = []
    for seat, cards in reversed(plays):  # hand sizes before each play, from the current counts
        sizes[seat] += len(cards)
        before.append(list(sizes))
    before.reverse()
    emperor, called = view.get("emperor"), view.get("called_card")
    values = [values_of(cards, supers_of(rules, seat, emperor, called)) for seat, cards in plays]
    passers: list[list[int]] = [[] for _ in plays]
    for index, (seat, cards) in enumerate(plays):
        lead = index == 0 or plays[index - 1][0] == seat
        if not lead:
            previous = values[index - 1]
            bomb = is_bomb(rules, cards)
            lead = not bomb and not (
                is_valid_play(rules, values[index]) and beats_values(rules, values[index], previous)
            )
        if index:
            owner = plays[index - 1][0]
            after = list(before[index])  # sizes after the previous play
            holders = [s for s in range(5) if after[s] and s != owner]
            if lead:
                passers[index - 1] = holders
            else:
                between = []
                step = (owner + 1) % 5
                while step != seat:
                    if after[step]:
                        between.append(step)
                    step = (step + 1) % 5
                passers[index - 1] = between
        mine = values[index]
        if (
            not lead
            or seat == me
            or mine[0] >= JOKER_FLOOR
            or len(set(mine)) != 1
            or mine[0] == rules.must_last
        ):
            continue
        sizes = before[index]
        if sizes[seat] < READ_LEADER_FROM:
            continue
        if any(0 < n <= READ_LEADS_ABOVE for s, n in enumerate(sizes) if s != seat):
            continue
        floors[seat] = max(floors[seat], mine[0])
    if plays and view.get("table") is not None:
        passers[-1] = [s for s in view.get("passed") or () if s != plays[-1][0]]
    passes = []
    later = [Counter() for _ in range(5)]
    for index in range(len(plays) - 1, -1, -1):
        owner = plays[index][0]
        table = values[index]
        if table[0] < JOKER_FLOOR and len(set(table)) == 1 and not is_bomb(rules, plays[index][1]):
            for seat in passers[index]:
                if seat != me:
                    passes.append((seat, owner, len(table), table[0], Counter(later[seat])))
        later[owner].update(v for v in values[index] if v < JOKER_FLOOR)
    return floors, passes


def _guard_public(view: dict, reading: Reading, guard_card: str | None) -> bool:
    """Whether everyone knows the guard: the view shows him to others only then; the guard himself
    sees his role always, and reads it from 明保, a successful rebellion or his own play of the
    guard card."""
    roles = view.get("roles") or [None] * 5
    if roles[reading.seat] != "guard":
        return "guard" in roles
    declared = [d["type"] for d in view.get("declarations") or ()]
    if "reveal" in declared or (reading.rules.declaration_doubling == "two" and declared.count("rebel") >= 2):
        return True
    return any(seat == reading.seat and guard_card in cards for seat, cards in view.get("plays") or ())


def _group_passes(passes: list[tuple]) -> list[tuple]:
    """The passes read, grouped by passer, owner, size and what the passer played since, with their
    plays' tops sorted: a deal breaks a group's passes on the plays below one rank (`_broken`)."""
    groups: dict[tuple, list[int]] = {}
    laters: dict[tuple, Counter] = {}
    for passer, owner, size, top, later in passes:
        later_key = tuple(sorted(later.items()))
        laters[later_key] = later
        groups.setdefault((passer, owner, size, later_key), []).append(top)
    return [
        (passer, owner, size, later_key, laters[later_key], sorted(tops))
        for (passer, owner, size, later_key), tops in groups.items()
    ]


class Deducer:
    """What the view fixes about the other hands, computed once per search; `world(rng)` deals one."""

    def __init__(self, view: dict, reading: Reading):
        self.view, self.reading = view, reading
        rules = reading.rules
        seat = reading.seat
        self.seat = seat
        roles = view.get("roles") or [None] * 5
        self.emperor = view.get("emperor")
        pool = Counter(rules.deck)
        pool.subtract(reading.hand)
        pool.subtract(_played_codes(view))
        pool.subtract(view.get("pile_cards") or ())  # the travelling cards a candidate is shown
        self.counts = [len(reading.hand) if s == seat else count_of(c) for s, c in enumerate(view["counts"])]
        # laowang hides counts above ten (">10"): those seats share what the exact counts leave.
        self.hidden = [s for s, c in enumerate(view["counts"]) if s != seat and not isinstance(c, int)]
        self.pool = sorted((+pool).elements(), key=lambda c: (BASE_VALUE[c], c))
        self.solo = view.get("solo")
        self.soloist = next((s for s in range(5) if roles[s] == "soloist"), None)
        self.guard = next((s for s in range(5) if roles[s] == "guard"), None)
        self.guard_card = _guard_card(reading, view)
        self.guard_public = _guard_public(view, reading, self.guard_card)
        if self.soloist is not None and self.guard is None:
            self.solo = self.solo or ("hidden" if self.soloist == seat else "open")
        # A hidden guard is one of the seats neither emperor nor a declared commoner (造反 is public).
        self.guard_choices = [
            s for s in range(5) if s not in (seat, self.emperor) and roles[s] is None and self.counts[s] > 0
        ]
        self.floors, self.passes = read_plays(view, reading, self.counts)
        self.pass_groups = _group_passes(self.passes)
        self.teams_public = self.guard_public or self.soloist is not None
        self.rebels = {d["seat"] for d in view.get("declarations") or () if d["type"] == "rebel"}
        self.supers = [supers_of(rules, s, self.emperor, view.get("called_card")) for s in range(5)]
        floored = [s for s in range(5) if self.floors[s] and s != seat]
        self.floored = sorted(floored, key=lambda s: -self.floors[s])
        # Each seat's value of each card it may hold; jokers and super cards count as -1, below every
        # natural, since passes are read on plays of naturals only.
        self.natural_value = [
            {
                code: -1 if value >= JOKER_FLOOR else value
                for code in set(self.pool) | set(reading.hand)
                for value in [SUPER_VALUE if code in self.supers[s] else BASE_VALUE[code]]
            }
            for s in range(5)
        ]
        called = view.get("called_card") if rules.guard_card_super else None
        self.open_value = {
            code: BASE_VALUE[code] < JOKER_FLOOR and code != called and BASE_VALUE[code] != rules.must_last
            for code in set(self.pool)
        }

    def world(self, rng: random.Random, budget: list[int] | None = None) -> State | None:
        """One world; where passes were read, the one breaking the fewest of them among up to
        `PASS_TRIES` deals (rejection: consistent worlds keep their relative odds)."""
        budget = budget if budget is not None else [0]
        best, fewest = None, None
        for _ in range(PASS_TRIES if self.passes else 1):
            budget[0] -= WORLD_COST
            dealt = self._deal(rng)
            if dealt is None:
                continue
            broken = self._broken(*dealt) if self.passes else 0
            if fewest is None or broken < fewest:
                best, fewest = dealt, broken
                if not broken:
                    break
        return None if best is None else self._state(*best)

    def _broken(self, hands, guard, solo) -> int:
        """How many of the read passes this deal contradicts: a seat that passed on an opponent's
        play while holding exactly that many naturals of a higher rank. Passes a seat would make
        knowingly for a partner say nothing (the guard knows the emperor; commoners know each other
        once the teams are public or the player of the trick rebelled)."""
        emperor, must_last = self.emperor, self.reading.rules.must_last
        side = [1 if s == emperor or (not solo and s == guard) else 0 for s in range(5)]
        held: dict[int, Counter] = {}
        highest: dict[tuple, int] = {}
        broken = 0
        for passer, owner, size, later_key, later, tops in self.pass_groups:
            if side[passer] == side[owner]:
                if self.teams_public or passer == guard:
                    continue
                if passer != emperor and owner in self.rebels:
                    continue
            found = highest.get((passer, size, later_key))
            if found is None:
                counts = held.get(passer)
                if counts is None:
                    value_of = self.natural_value[passer]
                    counts = held[passer] = Counter(map(value_of.__getitem__, hands[passer]))
                # The highest rank, not the must-last one, that made exactly a whole set of `size`
                # in the passer's hand at the pass: what it holds now and what it has played since.
                found = 0
                for value, n in counts.items():
                    if value > found and value != must_last and n + later.get(value, 0) == size:
                        found = value
                for value, n in later.items():
                    if value > found and n == size and value != must_last and value not in counts:
                        found = value
                highest[(passer, size, later_key)] = found
            broken += bisect_left(tops, found)  # the passes on plays below that rank are broken
        return broken

    def _deal(self, rng: random.Random) -> tuple | None:
        view, reading, seat = self.view, self.reading, self.seat
        counts = list(self.counts)
        pool = list(self.pool)
        hands: list[list[str]] = [[] for _ in range(5)]
        hands[seat] = list(reading.hand)
        guard, solo = self.guard, self.solo
        if self.soloist is None and guard is None and self.emperor is not None:
            if reading.role == "guard":
                guard = seat
            elif self.guard_choices:
                guard = self.guard_choices[rng.randrange(len(self.guard_choices))]
        if self.hidden:
            spare = len(pool) - sum(counts[s] for s in range(5) if s != seat and s not in self.hidden)
            share = max(spare, 0) // len(self.hidden)
            for s in self.hidden:
                counts[s] = max(count_of(view["counts"][s]), share)

        def place(code: str, holder: int | None) -> None:
            if holder is None or holder == seat or code not in pool or len(hands[holder]) >= counts[holder]:
                return
            pool.remove(code)
            hands[holder].append(code)

        # The emperor card goes with the emperor role (docs/rules.md §2.3); the guard's card is
        # the guard's, and the rest of a called card's copies are the emperor's (he called a card he
        # held three times).
        place("BJ*", self.emperor)
        if self.guard_card is not None and guard is not None:
            place(self.guard_card, guard)
            if self.guard_card != "SJ*":
                while self.guard_card in pool and len(hands[self.emperor]) < counts[self.emperor]:
                    place(self.guard_card, self.emperor)
        rng.shuffle(pool)
        # Seats whose leads showed a floor take only cards above it (or jokers, or must-last cards)
        # first, from the shuffled pool: a uniform draw among the cards they may hold.
        for s in self.floored:
            need = counts[s] - len(hands[s])
            floor, open_value = self.floors[s], self.open_value
            rest = []
            for code in pool:
                if need and (not open_value[code] or BASE_VALUE[code] > floor):
                    hands[s].append(code)
                    need -= 1
                else:
                    rest.append(code)
            pool = rest
        at = 0
        for s in range(5):
            if s == seat:
                continue
            need = counts[s] - len(hands[s])
            if need > len(pool) - at:
                return None
            hands[s] += pool[at : at + need]
            at += need
        return hands, guard, solo

    def before_play(self, rng: random.Random, budget: list[int]) -> State | None:
        """One world at the view's pre-play decision (emperor selection, the guard call or a
        window): a dealt world (`world`) put back into that phase, with what the view says of it.
        Before the call nobody is the guard yet (the call decides who is); a window's other answers
        are unknown, so every asked seat still has to answer."""
        world = self.world(rng, budget)
        if world is None:
            return None
        view = self.view
        world.phase = Phase(view["phase"])
        world.turn = None
        world.passed = ()
        world.table = None
        if world.phase == Phase.EMPEROR_SELECTION:
            # The view shows the travelling cards, not how many declined: every decline after the
            # first added a card to them, except the emperor card itself, which travels from the
            # first decline on ("holder" presets) or from the start (wuren, laowang).
            world.pile = tuple(view.get("pile_cards") or ())
            world.candidate = self.seat
            world.turned_card = view.get("turned_card")
            from_start = 0 if self.reading.rules.candidate_mode == "holder" else 1
            world.declines = max(len(world.pile) - from_start, 0)
            world.emperor, world.guard, world.solo, world.guard_public = None, None, None, False
            return world
        if world.phase == Phase.CALL:
            world.guard, world.solo, world.guard_public = None, None, False
            return world
        declared = [d["type"] for d in view.get("declarations") or ()]
        world.guard_declared = "reveal" in declared
        world.rebellion_succeeded = world.rules.declaration_doubling == "two" and declared.count("rebel") >= 2
        if world.solo == "hidden" and not world.guard_public:
            world.solo_public = world.rebellion_succeeded
        window = view["window"]
        world.window = Window(WindowKind(window["kind"]), tuple(window["asked"]))
        return world

    def _state(self, hands, guard, solo) -> State:
        view, rules = self.view, self.reading.rules
        places = tuple(view.get("places") or (None,) * 5)
        order = tuple(sorted((s for s in range(5) if places[s] is not None), key=lambda s: places[s]))
        frozen = tuple(sort_codes(h) for h in hands)
        specials = frozenset(c for c in ("BJ*", "SJ*") if c in rules.deck)
        if view.get("called_card"):
            specials |= {view["called_card"]}
        state = State(
            rules=rules,
            seed=0,
            start_seat=view.get("start_seat") or 0,
            hands=frozen,
            dealt=frozen,
            phase=Phase.PLAY,
            emperor=self.emperor,
            guard=guard,
            solo=solo,
            guard_public=self.guard_public,
            solo_public=solo == "open",
            called_card=view.get("called_card"),
            specials=specials,
            multiplier=view.get("multiplier") or 1,
            passed=tuple(view.get("passed") or ()),
            turn=view["turn"],
            finish_order=order,
            places=places,
            declarations=tuple((d["seat"], d["type"]) for d in view.get("declarations") or ()),
        )
        table = view.get("table")
        if table is not None:
            cards = tuple(table["cards"])
            state.table = TablePlay(
                table["seat"],
                cards,
                values_of(cards, supers_for(state, table["seat"])),
                bool(table.get("bomb")),
            )
        return state


# --- the rollout -----------------------------------------------------------------------------------


def _side(state: State, seat: int) -> int:
    if seat == state.emperor or (not state.solo and seat == state.guard):
        return 1
    return 0


def _known_partners(state: State, side: list[int]) -> list[list[bool]]:
    """knows[s][o]: seat s knows that o plays on its side, so it leaves o's tricks alone. Everyone
    knows once the teams are public; before, the guard knows the emperor (not the other way round)
    and a commoner knows a declared rebel (造反 is public)."""
    public = state.guard_public or state.solo_public or state.solo == "open"
    rebels = {s for s, kind in state.declarations if kind == "rebel"}
    knows = [[False] * 5 for _ in range(5)]
    for s in range(5):
        for o in range(5):
            if side[s] != side[o]:
                continue
            if s == o or public:
                knows[s][o] = True
            elif side[s]:  # the emperor's side: a hidden guard knows the emperor
                knows[s][o] = s == state.guard
            else:
                knows[s][o] = o in rebels
    return knows


AFTER = tuple(tuple((seat + step) % 5 for step in range(1, 6)) for seat in range(5))  # ends with seat


class Rollout:
    """A deal played to the end on card *values* alone (no codes, no view, no copies of the State),
    by the normal bot's main habits in every seat (it picks the normal bot's play in about nine
    cases in ten): lead the lowest whole set (the largest against an opponent nearly out); answer
    with a whole set of naturals, the highest one (the least likely to be beaten), else a whole set
    made up with one joker; break a set or spend more jokers only to stop an opponent nearly out or
    to go out; leave alone the tricks of a partner the player *knows* (`_known_partners`). The turn
    flow is the engine's (docs/rules.md §1 "Turn flow", 接风); the preset answers of another size
    (烤牌, two-kill) and bombs are not tried, which only makes the imagined players a little plainer.
    The places it reaches are scored by the engine's own scoring."""

    def __init__(self, state: State):
        rules = state.rules
        self.rules = rules
        self.must_last = rules.must_last
        self.naturals = []
        self.jokers = []
        for seat in range(5):
            supers = supers_for(state, seat)
            counts: dict[int, int] = {}  # a plain dict: Counter's item deletion is slow Python code
            jokers = []
            for code in state.hands[seat]:
                value = SUPER_VALUE if code in supers else BASE_VALUE[code]
                if value >= JOKER_FLOOR:
                    jokers.append(value)
                else:
                    counts[value] = counts.get(value, 0) + 1
            jokers.sort()
            self.naturals.append(counts)
            self.jokers.append(jokers)
        self.size = [len(h) for h in state.hands]
        self.side = [_side(state, s) for s in range(5)]
        self.knows = _known_partners(state, self.side)
        self.places = list(state.places)
        self.out = len(state.finish_order)
        table = state.table
        self.table = (table.seat, table.values) if table is not None else None
        self.passed = set(state.passed)
        self.turn = state.turn
        self._sides_left()

    def _next_holder(self, seat: int) -> int:
        size = self.size
        for other in AFTER[seat]:
            if size[other]:
                return other
        return seat

    def _remove(self, seat: int, values: tuple[int, ...]) -> None:
        """Take a play's values (sorted high to low, as every play here is) out of `seat`'s hand."""
        naturals = self.naturals[seat]
        first = values[0]
        if first == values[-1] and first < JOKER_FLOOR:  # a whole set of naturals, most plays
            left = naturals[first] - len(values)
            if left:
                naturals[first] = left
            else:
                del naturals[first]
        else:
            jokers = self.jokers[seat]
            for value in values:
                if value >= JOKER_FLOOR:
                    jokers.remove(value)
                else:
                    left = naturals[value] - 1
                    if left:
                        naturals[value] = left
                    else:
                        del naturals[value]
        self.size[seat] -= len(values)

    def _danger(self, seat: int) -> int:
        return self.smallest[self.side[seat]]

    def _lead(self, seat: int) -> tuple[int, ...]:
        naturals = self.naturals[seat]
        ranks = naturals if self.must_last not in naturals else [v for v in naturals if v != self.must_last]
        if not ranks:  # jokers and must-last cards only: they go out together
            return tuple(
                sorted([v for v, n in naturals.items() for _ in range(n)] + self.jokers[seat], reverse=True)
            )
        if self._danger(seat) <= NEARLY_OUT:
            value = max(ranks, key=lambda v: (naturals[v], -v))
        else:
            value = min(ranks)
        return (value,) * naturals[value]

    def _follow(self, seat: int, owner: int, table: tuple[int, ...]) -> tuple[int, ...] | None:
        """The answer to `owner`'s `table` (None: pass). The answers are ranked (the first kind found
        wins): a whole set of naturals, the highest; a set made up with jokers, the cheapest in
        joker control and then the lowest rank; a set broken (only when urgent), the lowest rank;
        jokers alone (only when urgent)."""
        if self.knows[seat][owner]:
            return None
        need = len(table)
        naturals, jokers = self.naturals[seat], self.jokers[seat]
        size = self.size
        danger = self.smallest[self.side[seat]]  # _danger(seat), inlined: called at every rollout answer
        urgent = size[seat] == need or 0 < size[owner] <= NEARLY_OUT or danger <= NEARLY_OUT
        top, lowest = table[0], table[-1]
        must_last = self.must_last
        spare = len(jokers)
        whole = broken = mixed = None
        # A whole set of naturals beats a play of its size exactly when its rank is above the play's
        # highest card (pairwise beating; under 烤牌 naturals alone never beat jokers), so those
        # answers need no call to the engine's beating rules; answers with a joker do.
        for value, count in naturals.items():
            if value <= lowest or value == must_last:
                continue
            if count == need:
                if value > top and (whole is None or value > whole):
                    whole = value
            elif count > need:
                if urgent and value > top and (broken is None or value < broken):
                    broken = value
            elif count + spare >= need:
                if mixed is None:
                    mixed = []
                mixed.append((value, count))
        if whole is not None:
            return (whole,) * need
        if mixed:
            costs = {}
            ranked = []
            for value, count in mixed:
                short = need - count
                cost = costs.get(short)
                if cost is None:
                    cost = costs[short] = sum(JOKER_CONTROL[j] for j in jokers[:short])
                if cost <= JOKER_ANSWER_COST or urgent:
                    ranked.append((cost, value, count))
            ranked.sort()
            rules = self.rules
            for _, value, count in ranked:
                answer = tuple(sorted(jokers[: need - count], reverse=True)) + (value,) * count
                if is_valid_play(rules, answer) and beats_values(rules, answer, table):
                    return answer
        if broken is not None:
            return (broken,) * need
        if urgent and spare >= need:
            answer = tuple(sorted(jokers[:need], reverse=True))
            if beats_values(self.rules, answer, table):
                return answer
        return None

    def run(self, budget: list[int]) -> None:
        """Play on until the holders left are all on one side (their order among themselves changes
        no score: every scoring counts a side's places together); each decision takes one from
        `budget[0]`. The holders left take the places after the last one out in seat order, as the
        engine does."""
        size, side, left, smallest = self.size, self.side, self.left, self.smallest
        table, passed, turn = self.table, self.passed, self.turn
        decisions = 0
        while left[0] and left[1]:
            seat = turn
            decisions += 1
            if table is None:
                play = self._lead(seat)
            else:
                play = self._follow(seat, table[0], table[1])
            if play is None:
                passed.add(seat)
            else:
                self._remove(seat, play)
                table = (seat, play)
                passed = set()
                n = size[seat]
                if not n:
                    self.out += 1
                    self.places[seat] = self.out
                    left[side[seat]] -= 1
                    self._opponent_sizes()
                elif n < smallest[1 - side[seat]]:
                    smallest[1 - side[seat]] = n
            # The turn flow (docs/rules.md §1 "Turn flow"): the next seat still holding cards, the
            # trick back to its owner when everyone else passed, or to the seat after an owner who
            # went out (接风) once every holder passed.
            owner = table[0]
            for following in AFTER[seat]:
                if size[following]:
                    break
            if size[owner]:
                if following == owner:
                    table, passed, turn = None, set(), owner
                else:
                    turn = following
            elif not any(size[s] and s not in passed for s in range(5)):
                table, passed, turn = None, set(), self._next_holder(owner)
            else:
                turn = following
        budget[0] -= decisions
        self.table, self.passed, self.turn = table, passed, turn
        for s in range(5):
            if size[s] and self.places[s] is None:
                self.out += 1
                self.places[s] = self.out

    def _sides_left(self) -> None:
        self.left = [0, 0]
        self.smallest = [99, 99]
        for s in range(5):
            if self.size[s]:
                self.left[self.side[s]] += 1
        self._opponent_sizes()

    def _opponent_sizes(self) -> None:
        """smallest[k]: the smallest hand held against side k (kept in place: `run` holds it)."""
        size, side = self.size, self.side
        smallest = self.smallest
        smallest[0] = smallest[1] = 99
        for s in range(5):
            n = size[s]
            if n:
                k = 1 - side[s]
                if n < smallest[k]:
                    smallest[k] = n


def play_out(state: State, seat: int, budget: list[int]) -> int:
    """My score at the end of the deal from `state`, played out by Rollout."""
    if state.scores is not None:
        return state.scores[seat]
    if state.phase != Phase.PLAY:
        return 0
    game = Rollout(state)
    game.run(budget)
    if any(p is None for p in game.places):
        return 0
    scores, _ = deal_result(state, tuple(game.places))
    return scores[seat]


# --- the search ------------------------------------------------------------------------------------


def obvious(view: dict, reading: Reading, normal: Action) -> Action | None:
    """Decisions that need no search: a known partner holds the trick and the normal bot leaves it."""
    table = view["table"]
    if table is not None and table["seat"] in reading.partners and normal == PASS:
        return PASS
    return None


def search_play(view: dict, rng: random.Random | None, normal: Action) -> Action:
    reading = read_view(view)
    sure = obvious(view, reading, normal)
    if sure is not None:
        return sure
    options = candidates(view, reading, normal)
    if len(options) == 1:
        return options[0]
    if rng is None:
        rng = random.Random(json.dumps(view, sort_keys=True))
    deducer = Deducer(view, reading)
    seat = reading.seat
    results: list[list[float]] = [[] for _ in options]
    budget = [DECISION_BUDGET]
    for _ in range(MAX_WORLDS * 2):
        if budget[0] <= 0 or len(results[0]) >= MAX_WORLDS:
            break
        world = deducer.world(rng, budget)
        if world is None:
            continue
        for index, action in enumerate(options):
            try:
                after, _ = apply_action(world, seat, action)
            except IllegalAction:  # cannot happen with my own legal action; never chosen then
                results[index].append(-1e9)
                continue
            results[index].append(play_out(after, seat, budget))
    return options[choose(results)]


def choose(results: list[list[float]], sure: float | None = None) -> int:
    """The candidate with the best mean score, but another than the normal bot's choice (index 0)
    only when it beats that one clearly: its mean gain per world, paired on the same worlds, above
    `SURE` standard errors. A few worlds are noisy; without this the search would trade the normal
    bot's sound habits for luck in the sample."""
    worlds = len(results[0])
    if worlds < 2:
        return 0
    best = max(range(len(results)), key=lambda i: (statistics.fmean(results[i]), -i))
    if best == 0:
        return 0
    gains = [b - a for a, b in zip(results[0], results[best])]
    mean = statistics.fmean(gains)
    spread = statistics.stdev(gains) / math.sqrt(worlds)
    sure = SURE if sure is None else sure
    return best if mean > 0 and mean > sure * spread else 0


# --- before play -----------------------------------------------------------------------------------

BEFORE_PLAY = frozenset(
    (Phase.EMPEROR_SELECTION, Phase.CALL, Phase.SOLO_WINDOW, Phase.DECLARATION_WINDOW, Phase.KICK_WINDOW)
)
ANSWER_COST = 150  # a normal answer of another seat in a world costs about this many rollout decisions
# The presets whose pre-play decisions `hard` searches: those where it gained on the tuning deals
# (docs/bots.md "Before play"; pagat: in both halves of its tuning deals 0-199, where any one
# declaration doubles the deal); elsewhere it answers before play as `normal` does.
SEARCH_BEFORE_PLAY = frozenset(("lianzhong_simple", "lianzhong_classic", "pagat"))
# Before play, another answer than the normal bot's needs this many times `SURE` standard errors of
# gain: these answers move a whole deal (a solo is worth ±24), and the rollout judges them from the
# first card on.
SURE_BEFORE_PLAY = 2.0


def _normal_answer(state: State, seat: int) -> Action:
    """What the normal bot answers in `seat` of an imagined world (bot_action's pre-play branch)."""
    view = seat_view(state, seat)
    legal = legal_actions(state, seat)
    if len(legal) == 1:
        return legal[0]
    if state.phase == Phase.EMPEROR_SELECTION:
        return choose_selection(view, legal)
    return choose_call(view, legal) if state.phase == Phase.CALL else choose_answer(view, legal)


def _to_play(state: State, answers: dict, budget: list[int]) -> State:
    """Drive an imagined world through the rest of the pre-play phases, every seat answering as the
    normal bot does (`answers` keeps a world's answers: a seat answers a window the same whatever
    my answer was, since answers are private until the window closes)."""
    while state.phase in BEFORE_PLAY:
        seat = to_act(state)[0]
        key = (seat, state.phase, state.candidate, state.declines, state.emperor, state.guard, state.solo,
               state.guard_public, state.multiplier)
        action = answers.get(key)
        if action is None:
            budget[0] -= ANSWER_COST
            action = answers[key] = _normal_answer(state, seat)
        state, _ = apply_action(state, seat, action)
    return state


def search_before_play(view: dict, rng: random.Random | None, normal: Action) -> Action:
    """The guard call and the declaration windows (docs/rules.md §2.4-2.5), searched like a play:
    each legal answer is applied by the engine in the same worlds, the other seats answer what is
    left as the normal bot does, and the deal is played out by the rollout. These answers double or
    halve what a deal is worth (明保, 造反, 踢, 明独), which the play search never weighs."""
    options = [normal] + [
        action for action in (_entry_action(e) for e in view["legal_actions"]) if action != normal
    ][: MAX_CANDIDATES - 1]
    if len(options) == 1:
        return normal
    if rng is None:
        rng = random.Random(json.dumps(view, sort_keys=True))
    reading = read_view(view)
    deducer = Deducer(view, reading)
    seat = reading.seat
    results: list[list[float]] = [[] for _ in options]
    budget = [DECISION_BUDGET]
    for _ in range(MAX_WORLDS * 2):
        if budget[0] <= 0 or len(results[0]) >= MAX_WORLDS:
            break
        world = deducer.before_play(rng, budget)
        if world is None:
            continue
        answers: dict = {}
        try:
            # A world where one of my legal answers is not legal (campus: a callable card needs every
            # other hand to hold its rank) contradicts the view: it is dropped.
            outcomes = [
                play_out(_to_play(apply_action(world, seat, action)[0], answers, budget), seat, budget)
                for action in options
            ]
        except IllegalAction:
            continue
        for index, outcome in enumerate(outcomes):
            results[index].append(outcome)
    return options[choose(results, SURE * SURE_BEFORE_PLAY)]
