"""docs/engine.md "Listing": `legal_actions` lists the same actions in the same order for every
state, release after release (the bots' choices, and the held-out bot measurement, depend on it).
Random legal self-play, 20 chained deals per preset, each listing hashed in order; the digests in
data/listing_digests.json were recorded from the engine of commit 78b2740. A change that alters a
listing on purpose (a rule change) records them anew:

    .venv/bin/python -m tests.engine.test_listing_digest

bench/engine_listings.py compares every listing with another commit's engine directly, for as many
deals as asked.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from games import engine

DIGESTS = Path(__file__).parent / "data" / "listing_digests.json"
DEALS = 20


def listing_digest(name: str) -> str:
    """The hash of every listing (type, cards, card of each action, in order) and every deal's
    scores, playing each action drawn at random from the listing."""
    rules = engine.preset(name)
    rng = random.Random(f"listing digest {name}")
    digest = hashlib.sha256()
    context = None
    for seed in range(DEALS):
        state = engine.new_deal(rules, seed=seed, context=context)
        while state.phase not in ("over", "void"):
            seat = rng.choice(engine.to_act(state))
            legal = engine.legal_actions(state, seat)
            digest.update(repr([(str(a.type), a.cards, a.card) for a in legal]).encode())
            state, _ = engine.apply_action(state, seat, legal[rng.randrange(len(legal))])
        context = engine.final_view(state)
        digest.update(repr(context["scores"]).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("name", engine.PRESETS)
def test_listings_are_those_recorded(name):
    assert listing_digest(name) == json.loads(DIGESTS.read_text())[name]


def test_a_changed_listing_changes_the_digest(monkeypatch):
    """The digest sees order: the same actions listed in reverse give another digest."""
    original = engine.legal_actions
    monkeypatch.setattr(engine, "legal_actions", lambda state, seat: original(state, seat)[::-1])
    assert listing_digest("laowang") != json.loads(DIGESTS.read_text())["laowang"]


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps({name: listing_digest(name) for name in engine.PRESETS}, indent=2) + "\n")
    print(f"wrote {DIGESTS}")
