"""Emperor selection and the guard call (docs/rules.md §2.3–2.4; the preset rules of §3.1–3.7).

One candidate at a time. A declined role moves to the 上家 or 下家 (`decline_direction`) with the
emperor card and any attached cards in a travelling pile, which joins the hand of whoever accepts.
A candidate with exactly one legal answer answers it at once (wuren's automatic decline, campus's
"must decline", forced acceptance), and a candidate with none voids the deal (campus, §3.5).
"""

from __future__ import annotations

from .cards import BASE_VALUE, is_joker, sort_codes
from .state import ACCEPT, DECLINE, SOLO, TRANSFER, Action, ActionType, IllegalAction, Phase, State, next_seat


def _count(hand, code: str) -> int:
    return sum(1 for c in hand if c == code)


def callable_cards(state: State, seat: int, hand=None) -> list[str]:
    """Cards `seat` could call as guard card, highest first (§3.3 classic, §3.4 wuren, §3.5 campus)."""
    mode = state.rules.call_mode
    hand = state.hands[seat] if hand is None else hand
    counts: dict[str, int] = {}
    for code in hand:
        if not is_joker(code):
            counts[code] = counts.get(code, 0) + 1
    found = []
    for code, count in counts.items():
        if count < 3:
            continue
        rank = code[0]
        if mode in ("wuren", "campus") and rank == "2":
            continue
        if mode == "campus":
            if rank == "3":
                continue
            others = [s for s in range(5) if s != seat]
            if not all(any(c[0] == rank and not is_joker(c) for c in state.hands[s]) for s in others):
                continue
        found.append(code)
    return sorted(found, key=lambda c: (-BASE_VALUE[c], c))


def _holds_four(state: State, seat: int) -> bool:
    hand = state.hands[seat]
    return any(_count(hand, code) >= 4 for code in set(hand) if not is_joker(code))


def _has_two(state: State, seat: int) -> bool:
    return any(c[0] == "2" for c in state.hands[seat])


def selection_actions(state: State) -> list[Action]:
    rules = state.rules
    seat = state.candidate
    hand = state.hands[seat]
    holds_guard_card = "SJ*" in hand
    first_decline = state.declines == 0
    actions: list[Action] = []
    can_accept = True
    if rules.call_mode is not None:
        can_accept = bool(callable_cards(state, seat, hand + state.pile))
    if can_accept:
        actions.append(ACCEPT)
    can_decline = rules.can_decline
    if rules.forced_after_declines is not None and state.declines >= rules.forced_after_declines:
        # classic: forced unless he cannot accept or holds four identical cards; pagat: forced.
        can_decline = rules.forced_spares_four and (not can_accept or _holds_four(state, seat))
    if rules.attach_on_decline == "two_required" and not first_decline and not _has_two(state, seat):
        can_decline = False
    if rules.call_mode in ("wuren", "campus") and not can_accept and can_decline:
        return [DECLINE]  # wuren and campus candidates without a callable card must decline
    if can_decline:
        actions.append(DECLINE)
    solo_rule = rules.selection_solo
    if (solo_rule == "always"
            or (solo_rule == "with_guard_card" and holds_guard_card)
            or (solo_rule == "with_guard_card_or_qiangdu"
                and (holds_guard_card or rules.option_dict.get("qiangdu")))):
        actions.append(SOLO)
    if rules.can_transfer and state.transferred_by is None and holds_guard_card:
        actions.append(TRANSFER)  # weihai 转让 (§3.1)
    return actions


def _attachment(state: State, seat: int) -> str | None:
    """The card a decliner after the first attaches (贴2), or None."""
    mode = state.rules.attach_on_decline
    if mode == "none" or state.declines == 0:
        return None
    hand = state.hands[seat]  # sorted high to low
    two = next((c for c in hand if c[0] == "2"), None)
    if two is not None or mode != "two_or_highest":
        return two
    return next((c for c in hand if not is_joker(c)), None)


def _take_from_hand(state: State, seat: int, codes) -> None:
    hand = list(state.hands[seat])
    for code in codes:
        hand.remove(code)
    hands = list(state.hands)
    hands[seat] = tuple(hand)
    state.hands = tuple(hands)


def _add_to_hand(state: State, seat: int, codes) -> None:
    hands = list(state.hands)
    hands[seat] = sort_codes(hands[seat] + tuple(codes))
    state.hands = tuple(hands)


def apply_selection(state: State, seat: int, action: Action, events: list[dict], *,
                    auto: bool = False) -> Action:
    """Apply a candidate's answer to `state` (a fresh copy owned by the caller); returns it for the log."""
    from .windows import after_emperor_chosen

    legal = selection_actions(state)
    if action.type not in {a.type for a in legal}:
        raise IllegalAction("not_allowed", f"{str(action.type)!r} is not open to this candidate now")
    event = {"type": str(action.type), "seat": seat}
    if auto:
        event["auto"] = True
    if action.type == ActionType.DECLINE:
        _decline(state, seat, event, events)
        return action
    if action.type == ActionType.TRANSFER:
        target = next_seat(seat, 2)
        _take_from_hand(state, seat, ["BJ*"])
        _add_to_hand(state, target, ["BJ*"])
        state.transferred_by = seat
        state.candidate = target
        event["to"] = target
        events.append(event)
        advance_selection(state, events)
        return action
    # accept or solo: the candidate becomes emperor and takes the travelling pile.
    events.append(event)
    _add_to_hand(state, seat, state.pile)
    if state.pile:
        events.append({"type": "pile_taken", "seat": seat, "count": len(state.pile)})
    state.pile = ()
    state.emperor = seat
    state.candidate = None
    rules = state.rules
    if action.type == ActionType.SOLO:
        state.solo = "open"
        state.solo_public = True
        state.guard = None
    elif rules.guard_mode == "fixed":
        if state.transferred_by is not None:
            state.guard = state.transferred_by
            state.guard_public = True  # a transfer is public (§3.1)
        else:
            holder = next((s for s in range(5) if "SJ*" in state.hands[s]), None)
            # **D:** with no guard card dealt (scripted hands) the emperor plays alone, hidden.
            if holder is None or holder == seat:
                state.solo, state.guard = "hidden", None
            else:
                state.guard = holder
    else:
        state.phase = Phase.CALL
        return action
    after_emperor_chosen(state, events)
    return action


def _decline(state: State, seat: int, event: dict, events: list[dict]) -> None:
    rules = state.rules
    target = next_seat(seat, rules.decline_direction)
    moving: list[str] = []
    if "BJ*" in state.hands[seat] and "BJ*" not in state.pile and rules.candidate_mode == "holder":
        moving.append("BJ*")
    attached = _attachment(state, seat)
    if attached is not None:
        moving.append(attached)
    if moving:
        _take_from_hand(state, seat, moving)
    state.pile = state.pile + tuple(moving)
    state.declines += 1
    event["to"] = target
    event["attached"] = 1 if attached else 0
    events.append(event)
    if attached:
        events.append({"type": "attach_cards", "seat": seat, "to": target, "cards": [attached],
                       "private_to": sorted({seat, target})})
    if rules.void_after_declines is not None and state.declines >= rules.void_after_declines:
        end_void(state, events)
        return
    # **D:** the travelling cards pass through each candidate's hands, so the new candidate sees all
    # of them (his view's `pile_cards`); this event tells him so in the log as well.
    events.append({"type": "pile_received", "seat": target, "cards": list(state.pile),
                   "private_to": [target]})
    state.candidate = target
    advance_selection(state, events)


def end_void(state: State, events: list[dict]) -> None:
    """No emperor found (docs/rules.md §1): the deal is void, scores 0, dealt again by the service."""
    from .settle import settle_void

    settle_void(state)
    events.append({"type": "void"})


def advance_selection(state: State, events: list[dict]) -> None:
    """Decline at once for a wuren candidate without a callable triple (the seed's 系统自动); void
    the deal when a candidate has no answer at all (campus, §3.5).

    **D:** every other forced answer (campus "must decline", a forced acceptance) is still
    prompted, with that answer as the only legal action: answering it at once would show everyone,
    by timing, what the candidate lacks (a qualifying card, `SJ*`, a 2)."""
    legal = selection_actions(state)
    if not legal:
        end_void(state, events)
    elif legal == [DECLINE] and state.rules.auto_decline_unable:
        apply_selection(state, state.candidate, DECLINE, events, auto=True)


def call_actions(state: State) -> list[Action]:
    rules = state.rules
    actions = [Action(ActionType.CALL, card=code) for code in callable_cards(state, state.emperor)]
    if rules.call_solo_open:
        actions.append(SOLO)
    if rules.call_solo_shows_four:
        hand = state.hands[state.emperor]
        actions += [Action(ActionType.SOLO, card=code) for code in callable_cards(state, state.emperor)
                    if _count(hand, code) == 4]
    return actions


def apply_call(state: State, seat: int, action: Action, events: list[dict]) -> Action:
    """Apply the emperor's call (or solo) to `state` (a fresh copy); returns it for the log."""
    from .windows import after_emperor_chosen

    rules = state.rules
    hand = state.hands[seat]
    if action.type != ActionType.CALL and action not in call_actions(state):
        raise IllegalAction("not_allowed", f"{str(action.type)!r} is not open to the emperor now")
    if action.type == ActionType.SOLO and rules.call_solo_open and action.card is None:
        state.solo, state.solo_public, state.guard = "open", True, None
        events.append({"type": "solo", "seat": seat})
        after_emperor_chosen(state, events)
        return action
    if action.card not in callable_cards(state, seat):
        raise IllegalAction("bad_call", f"{action.card!r} cannot be called")
    if action.type == ActionType.SOLO:
        if not rules.call_solo_shows_four or _count(hand, action.card) != 4:
            raise IllegalAction("bad_call", "明独 shows four identical cards")
        state.called_card = action.card
        state.specials = state.specials | {action.card}
        state.solo, state.solo_public, state.guard = "open", True, None
        state.multiplier *= 2  # wuren 明独 doubles score and tribute (§3.4)
        events.append({"type": "solo", "seat": seat, "card": action.card})
        after_emperor_chosen(state, events)
        return action
    state.called_card = action.card
    state.specials = state.specials | {action.card}  # playing it reveals the guard: list it apart
    events.append({"type": "call", "seat": seat, "card": action.card})
    holder = next((s for s in range(5) if s != seat and action.card in state.hands[s]), None)
    if _count(hand, action.card) == 4 or holder is None:
        state.solo, state.guard = "hidden", None  # 暗独: he holds the fourth copy himself
    else:
        state.guard = holder
    after_emperor_chosen(state, events)
    return action
