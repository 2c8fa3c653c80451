"""A finished deal step by step, built from the engine's public functions alone (docs/engine.md):
`new_deal` from the stored setup, then `apply_action` for each logged action, as `engine.replay`
does, keeping every seat's hand (`seat_view`) and the table (`public_view`) after each step.

Every hand is in it, so it is served only where the final view may be (after the end, or to staff
through the admin): `GET games/{id}/replay` and the admin's replay page.
"""

from collections.abc import Iterator
from typing import Any, NamedTuple

from games import engine, selectors
from games.models import Game

# The players' words for each action type (docs/rules.md §6), shown beside the English in both
# languages.
ACTION_TERMS = {
    "accept": "登基",
    "decline": "让位",
    "transfer": "转让",
    "solo": "独",
    "call": "叫",
    "reveal": "明保",
    "rebel": "造反",
    "kick": "踢",
    "stay": "不表态",
    "play": "出牌",
    "pass": "过",
}

# What a step shows of the public view: the table, not the whole view again.
_PUBLIC_KEYS = (
    "phase",
    "counts",
    "card_counts",
    "roles",
    "emperor",
    "table",
    "passed",
    "turn",
    "places",
    "to_act",
    "multiplier",
)


class Transition(NamedTuple):
    """One logged action: the state it was made in, who made it, and the state it left."""

    before: Any
    seat: int
    action: Any
    after: Any


def _snapshot(state: Any) -> dict:
    public = engine.public_view(state)
    return {
        **{key: public.get(key) for key in _PUBLIC_KEYS},
        "hands": [engine.seat_view(state, seat)["hand"] for seat in range(5)],
    }


def deal_states(*, rules: Any, setup: dict, actions: list[tuple[int, Any]]) -> Iterator[Transition]:
    """The deal as dealt, then each logged action with the state before and after it: what a reader
    of the whole record (a moderator, matchmaking/moderation/signs.py) walks through."""
    state = engine.new_deal(rules, **setup)
    for seat, action in actions:
        after, _ = engine.apply_action(state, seat, action)
        yield Transition(state, seat, action, after)
        state = after


def deal_steps(*, rules: Any, setup: dict, actions: list[tuple[int, Any]]) -> dict:
    """`start`: the deal as dealt; `steps`: after each action, with `seat`, `action`, and `beatable`:
    a pass by a seat that held a play beating the table (its legal actions listed one)."""
    start = _snapshot(engine.new_deal(rules, **setup))
    steps = []
    for before, seat, action, after in deal_states(rules=rules, setup=setup, actions=actions):
        beatable = action.type == engine.ActionType.PASS and any(
            option.type == engine.ActionType.PLAY for option in engine.legal_actions(before, seat)
        )
        steps.append(
            {"seat": seat, "action": engine.action_to_dict(action), "beatable": beatable, **_snapshot(after)}
        )
    return {"start": start, "steps": steps}


def game_replay(*, game: Game) -> dict:
    rules = selectors.rules_for(preset=game.preset, options=game.options)
    replay = deal_steps(rules=rules, setup=game.setup, actions=selectors.game_replay_log(game=game))
    return {
        "id": game.pk,
        "table_id": game.table_id,
        "number": game.number,
        "status": game.status,
        "preset": game.preset,
        "players": list(game.players),
        "scores": (game.final or {}).get("scores"),
        **replay,
    }
