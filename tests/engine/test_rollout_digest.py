"""docs/bots.md "`hard`: determinized search": the rollout (`searching.Rollout`) is a fixed policy —
the held-out strength of `hard` was measured with it — so a change made for speed must leave every
rollout's outcome as it was. Random legal self-play, 12 chained deals per preset; from every third
state of the play phase a rollout is run, and its places and the decisions it took are hashed in
order. The digests in data/rollout_digests.json were recorded from the rollout of commit 58beed5. A
change to the rollout's play on purpose (a new habit, chosen on the tuning deals) records them anew,
and the held-out measurement is then run again:

    .venv/bin/python -m tests.engine.test_rollout_digest
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from games import engine
from games.engine.bots import searching
from games.engine.state import Phase

DIGESTS = Path(__file__).parent / "data" / "rollout_digests.json"
DEALS = 12


def rollout_digest(name: str) -> tuple[str, int]:
    """The hash of every rollout's places and decision count, and how many rollouts were run."""
    rules = engine.preset(name)
    rng = random.Random(f"rollout digest {name}")
    digest = hashlib.sha256()
    context, rollouts, decision = None, 0, 0
    for seed in range(DEALS):
        state = engine.new_deal(rules, seed=seed, context=context)
        while state.phase not in ("over", "void"):
            seat = rng.choice(engine.to_act(state))
            if state.phase == Phase.PLAY:
                decision += 1
                if decision % 3 == 0:
                    game, budget = searching.Rollout(state), [0]
                    game.run(budget)
                    digest.update(repr((game.places, budget[0])).encode())
                    rollouts += 1
            legal = engine.legal_actions(state, seat)
            state, _ = engine.apply_action(state, seat, legal[rng.randrange(len(legal))])
        context = engine.final_view(state)
    return digest.hexdigest(), rollouts


@pytest.mark.parametrize("name", engine.PRESETS)
def test_rollouts_are_those_recorded(name):
    digest, rollouts = rollout_digest(name)
    assert rollouts > 100
    assert digest == json.loads(DIGESTS.read_text())[name]


def test_a_changed_rollout_changes_the_digest(monkeypatch):
    """The digest sees the rollout's answers: a rollout whose players never answer a trick gives
    another digest."""
    monkeypatch.setattr(searching.Rollout, "_follow", lambda self, seat, owner, table: None)
    assert rollout_digest("weihai")[0] != json.loads(DIGESTS.read_text())["weihai"]


if __name__ == "__main__":
    digests = {name: rollout_digest(name)[0] for name in engine.PRESETS}
    DIGESTS.write_text(json.dumps(digests, indent=2) + "\n")
    print(f"wrote {DIGESTS}")
