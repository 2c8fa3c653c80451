"""Signs of 串牌 in a deal, for the moderators' replay (docs/moderation.md "Signs of 串牌").

串牌 is help given to the other side, so every sign is judged by the teams as they stand at that
step in the full record (a hidden guard or a hidden solo included: moderators see everything), and
only where the record shows the help took effect. Three kinds:

* `let_stand`: a pass on an opponent's play that the seat could beat, and nobody after it beat it:
  the opponent won the trick through that pass.
* `fed`: a lead an opponent went out on, answering it with his whole hand, when the seat had a lead
  no opponent could go out on.
* `overtook`: a play over a partner's play that would have won the trick (no opponent could beat
  it, every seat after him passing in turn on the hands in the record).

Each sign has a `weight` in (0, 1], how clear it is: 1 when the seat knew from its own view that it
was helping the other side and had a cheap alternative; lowered when the seat could not know the
other seat's side (a hidden guard, a hidden solo), when answering (or a safe lead) would have cost it
jokers, 2s, a card that tells or a broken group, when the opponent had already gone out with the
play, when taking a partner's trick spent nothing strong, or when the preset hid the counts a feeder
needed. The factors are the constants below."""

from collections.abc import Iterable
from typing import Any, NamedTuple

from games import engine, selectors
from games.models import Game
from games.replay import Transition, deal_states

# The factors of a sign's weight (docs/moderation.md lists them with their reasons).
UNKNOWN_SIDE = 0.4  # the seat's own view did not show the other seat's side
COSTLY_ANSWER = 0.4  # every answer (safe lead) spends a joker, a 2 or a card that tells, or breaks a group
OPPONENT_ALREADY_OUT = 0.5  # the play let stand was the opponent's last: he is out whatever happens
TOOK_OVER = 0.5  # the play over the partner's spent nothing strong: it may be taking the lead to lead
UNSEEN_COUNTS = 0.5  # the preset hides card counts (laowang): the feeder could not see the count
# A sign this clear or clearer is "clear" on the replay, one at least SHOWN "possible"; fainter
# ones are not shown (a costly answer alone, or a side the seat could not see: ordinary play).
CLEAR = 0.75
SHOWN = 0.5


class Sign(NamedTuple):
    step: int  # 1-based, as the replay numbers its steps
    seat: int
    kind: str  # "let_stand", "fed" or "overtook"
    other: int  # the opponent it helped; for `overtook`, the partner whose trick it took
    weight: float

    @property
    def clear(self) -> bool:
        return self.weight >= CLEAR


def _side(state: Any, seat: int) -> bool:
    """True for the emperor's side (the soloist alone in a solo)."""
    return seat == state.emperor or (not state.solo and seat == state.guard)


def _knows_side(state: Any, seat: int, other: int) -> bool:
    return engine.seat_view(state, seat)["roles"][other] is not None


def _is_joker(code: str) -> bool:
    return code.startswith(("BJ", "SJ"))


def _cheap(state: Any, seat: int, cards: tuple[str, ...]) -> bool:
    """A play that spends no joker, no 2 and no card that tells (a marked card, the called card: playing
    it can reveal a side), and takes every card of its rank the hand holds."""
    hand = state.hands[seat]
    if any(_is_joker(code) or code[0] == "2" or code in state.specials for code in cards):
        return False
    ranks = {code[0] for code in cards}
    return len(ranks) == 1 and sum(code[0] in ranks for code in hand) == len(cards)


def _tricks(transitions: list[Transition]) -> list[list[int]]:
    """The play phase's steps (0-based) grouped by trick: a trick opens with a play on an empty table."""
    tricks: list[list[int]] = []
    for index, (before, _, action, _) in enumerate(transitions):
        if before.phase != engine.Phase.PLAY:
            continue
        if before.table is None and action.type == engine.ActionType.PLAY:
            tricks.append([])
        if tricks:
            tricks[-1].append(index)
    return tricks


def _let_stand(transitions: list[Transition], index: int, rest: list[int]) -> Sign | None:
    before, seat, action, _ = transitions[index]
    table = before.table
    if action.type != engine.ActionType.PASS or table is None:
        return None
    if _side(before, seat) == _side(before, table.seat):
        return None
    if any(transitions[later].action.type == engine.ActionType.PLAY for later in rest):
        return None  # someone beat it after all: the pass changed nothing
    answers = [a for a in engine.legal_actions(before, seat) if a.type == engine.ActionType.PLAY]
    if not answers:
        return None
    weight = 1.0
    if not _knows_side(before, seat, table.seat):
        weight *= UNKNOWN_SIDE
    if not any(_cheap(before, seat, answer.cards) for answer in answers):
        weight *= COSTLY_ANSWER
    if not before.hands[table.seat]:
        weight *= OPPONENT_ALREADY_OUT
    return Sign(index + 1, seat, "let_stand", table.seat, weight)


def _goes_out_on(state: Any, opponents: list[int], lead: tuple[str, ...]) -> list[int]:
    rules = state.rules
    return [
        seat
        for seat in opponents
        if engine.is_play(rules, state.hands[seat]) and engine.beats(rules, state.hands[seat], lead)
    ]


def _fed(transitions: list[Transition], index: int, rest: list[int]) -> Sign | None:
    before, seat, action, _ = transitions[index]
    if before.table is not None or action.type != engine.ActionType.PLAY:
        return None
    # Opponents who went out answering this very lead (a play over a later play is not this lead's doing).
    out = {
        t.seat
        for t in (transitions[later] for later in rest)
        if t.action.type == engine.ActionType.PLAY
        and t.before.table.cards == action.cards
        and not t.after.hands[t.seat]
    }
    opponents = [s for s in range(5) if before.hands[s] and _side(before, s) != _side(before, seat)]
    helped = [s for s in _goes_out_on(before, opponents, action.cards) if s in out]
    if not helped:
        return None
    leads = [a for a in engine.legal_actions(before, seat) if a.type == engine.ActionType.PLAY]
    safe = [lead for lead in leads if not _goes_out_on(before, opponents, lead.cards)]
    if not safe:
        return None  # every lead he had let an opponent out
    weight = 1.0
    if not any(_cheap(before, seat, lead.cards) for lead in safe):
        weight *= COSTLY_ANSWER
    if not _knows_side(before, seat, helped[0]):
        weight *= UNKNOWN_SIDE
    if before.rules.hide_counts_above is not None:
        weight *= UNSEEN_COUNTS
    return Sign(index + 1, seat, "fed", helped[0], weight)


def _would_stand(state: Any, seat: int) -> bool:
    """Had `seat` passed, would the play on the table have won the trick? Every seat after him passes
    in turn (on the hands in the record) until the trick ends; False as soon as an opponent of the
    play's owner could beat it."""
    owner = state.table.seat
    state, _ = engine.apply_action(state, seat, engine.Action(engine.ActionType.PASS))
    while state.phase == engine.Phase.PLAY and state.table is not None and state.table.seat == owner:
        turn = state.turn
        if turn == owner:
            break
        options = engine.legal_actions(state, turn)
        if _side(state, turn) != _side(state, owner) and any(
            option.type == engine.ActionType.PLAY for option in options
        ):
            return False
        state, _ = engine.apply_action(state, turn, engine.Action(engine.ActionType.PASS))
    return True


def _overtook(transitions: list[Transition], index: int, rest: list[int]) -> Sign | None:
    before, seat, action, after = transitions[index]
    table = before.table
    if action.type != engine.ActionType.PLAY or table is None or table.seat == seat:
        return None
    if _side(before, seat) != _side(before, table.seat) or not after.hands[seat]:
        return None  # over an opponent, or going out: ordinary play
    if not _knows_side(before, seat, table.seat):
        return None  # he could not tell a partner's play from an opponent's: overtaking is the game
    if not _would_stand(before, seat):
        return None  # an opponent could beat the partner's play: taking the trick over is fighting for it
    weight = TOOK_OVER if _cheap(before, seat, action.cards) else 1.0
    return Sign(index + 1, seat, "overtook", table.seat, weight)


def deal_signs(transitions: Iterable[Transition]) -> list[Sign]:
    """Every sign in a deal, in step order."""
    transitions = list(transitions)
    signs = []
    for trick in _tricks(transitions):
        for position, index in enumerate(trick):
            rest = trick[position + 1 :]
            for judge in (_let_stand, _fed, _overtook):
                sign = judge(transitions, index, rest)
                if sign is not None:
                    signs.append(sign)
    return signs


def game_signs(*, game: Game) -> list[Sign]:
    """The signs of a stored deal worth a moderator's look: SHOWN and clearer."""
    rules = selectors.rules_for(preset=game.preset, options=game.options)
    transitions = deal_states(rules=rules, setup=game.setup, actions=selectors.game_replay_log(game=game))
    return [sign for sign in deal_signs(transitions) if sign.weight >= SHOWN]


def seat_summary(signs: list[Sign]) -> list[dict]:
    """Per seat with any sign: how many (clear ones apart), the other seats concerned (the opponents
    helped, the partners overtaken) with counts, and the steps, for the top of the replay."""
    by_seat: dict[int, list[Sign]] = {}
    for sign in signs:
        by_seat.setdefault(sign.seat, []).append(sign)
    summary = []
    for seat, own in sorted(by_seat.items()):
        others: dict[int, int] = {}
        for sign in own:
            others[sign.other] = others.get(sign.other, 0) + 1
        summary.append(
            {
                "seat": seat,
                "count": len(own),
                "clear": sum(sign.clear for sign in own),
                "possible": sum(not sign.clear for sign in own),
                "weight": round(sum(sign.weight for sign in own), 2),
                "others": sorted(others.items()),
                "steps": [sign.step for sign in own],
            }
        )
    return summary
