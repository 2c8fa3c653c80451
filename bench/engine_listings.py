"""Every listing of this checkout's engine beside another checkout's, in random legal self-play.

docs/engine.md "Listing": a change that speeds up `legal_actions` must keep its output identical,
the same actions in the same order for every state (the bots' choices depend on it). This plays
`--seeds` deals per preset, each deal after the first dealt with the previous one's `final_view`
as its context (tribute, next start seat), choosing each action at random from this engine's
listing, and drives the other engine with the same actions; it stops at the first listing, event
list or final view that differs.

    .venv/bin/python bench/engine_listings.py --against-commit main [--seeds 20] [--preset laowang]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine_selfplay import load_engine  # noqa: E402  (bench/, beside this script)
from support import baseline_tree  # noqa: E402

from games import engine  # noqa: E402


def _listing(actions) -> list[tuple]:
    return [(str(a.type), a.cards, a.card) for a in actions]


def compare_preset(other, name: str, seeds: int) -> tuple[int, int]:
    """(deals, listings) compared for one preset; AssertionError at the first difference."""
    rules, other_rules = engine.preset(name), other.preset(name)
    rng = random.Random(f"listings {name}")
    listings = 0
    context = other_context = None
    for seed in range(seeds):
        state = engine.new_deal(rules, seed=seed, context=context)
        theirs = other.new_deal(other_rules, seed=seed, context=other_context)
        while state.phase not in ("over", "void"):
            seats = engine.to_act(state)
            assert seats == other.to_act(theirs), (name, seed, len(state.log))
            seat = rng.choice(seats)
            legal = engine.legal_actions(state, seat)
            where = (name, seed, len(state.log))
            assert _listing(legal) == _listing(other.legal_actions(theirs, seat)), where
            listings += 1
            action = legal[rng.randrange(len(legal))]
            state, events = engine.apply_action(state, seat, action)
            theirs, other_events = other.apply_action(theirs, seat, other.Action(action.type, action.cards,
                                                                                   action.card))
            assert events == other_events, (name, seed, len(state.log))
        context, other_context = engine.final_view(state), other.final_view(theirs)
        assert context == other_context, (name, seed)
    return seeds, listings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against-commit", metavar="REV", default="main")
    parser.add_argument("--seeds", type=int, default=20, help="deals per preset")
    parser.add_argument("--preset", choices=engine.PRESETS, action="append")
    args = parser.parse_args()
    revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.against_commit],
                              check=True, capture_output=True, text=True).stdout.strip()
    other = load_engine(str(baseline_tree(revision)))
    print(f"against: commit {revision}")
    for name in args.preset or engine.PRESETS:
        deals, listings = compare_preset(other, name, args.seeds)
        print(f"{name}: {deals} deals, {listings:,} listings identical")


if __name__ == "__main__":
    main()
