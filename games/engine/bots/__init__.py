"""Bot players (docs/engine.md `bot_action`): a choice made from the seat view alone.

`bot_action(view)` reads only the dict a client is served (`seat_view`), so a bot cannot see more
than a player in its seat. It always answers with one of `view["legal_actions"]`.

Levels: `normal` (what fills empty seats) is deterministic given the view; `easy` makes about one
play choice in three at random, drawn from `rng`; `hard` searches the play phase (searching.py),
deterministic given the view and `rng`. `hard` also reads the view's `plays` (engine.bot_view: the
deal's plays so far, which every client is shown in the game's events) when it is there.
"""

from __future__ import annotations

import json
import random

from ..state import Action
from .deciding import choose_answer, choose_call, choose_selection
from .playing import choose_play
from .reading import read_view
from .searching import BEFORE_PLAY, SEARCH_BEFORE_PLAY, search_before_play, search_play

LEVELS = ("easy", "normal", "hard")
EASY_RANDOM_SHARE = 1 / 3


def _action(entry: dict) -> Action:
    return Action(entry["type"], tuple(entry.get("cards") or ()), entry.get("card"))


def bot_action(view: dict, *, level: str = "normal", rng: random.Random | None = None) -> Action:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    entries = view["legal_actions"]
    if not entries:
        raise ValueError("this seat has nothing to do: the view lists no legal action")
    if len(entries) == 1:
        return _action(entries[0])
    phase = view["phase"]
    if phase == "play":
        if level == "easy":
            if rng is None:
                # Deterministic without an rng too: the same view always gets the same answer.
                rng = random.Random(json.dumps(view, sort_keys=True))
            if rng.random() < EASY_RANDOM_SHARE:
                return _action(entries[rng.randrange(len(entries))])
        normal = choose_play(read_view(view), view)
        if level == "hard":
            return search_play(view, rng, normal)
        return normal
    legal = [_action(e) for e in entries]
    if phase == "emperor_selection":
        normal = choose_selection(view, legal)
    elif phase == "call":
        normal = choose_call(view, legal)
    else:
        normal = choose_answer(view, legal)
    if level == "hard" and phase in BEFORE_PLAY and view["preset"] in SEARCH_BEFORE_PLAY:
        return search_before_play(view, rng, normal)
    return normal
