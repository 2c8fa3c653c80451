"""bench/engine_selfplay.py's loop survives a deal that ends as it is dealt (docs/rules.md §3.4: a
wuren pile can go round with automatic declines and void the deal at once)."""

import importlib.util
import random
from pathlib import Path

from games import engine

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "engine_selfplay.py"
VOID_AT_ONCE = 1029  # the seed whose first wuren deal is void as dealt (checked below)


def _script():
    spec = importlib.util.spec_from_file_location("bench_engine_selfplay", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_deal_void_as_dealt_is_counted_and_the_loop_goes_on():
    first = engine.new_deal(engine.preset("wuren"), seed=random.Random(VOID_AT_ONCE).getrandbits(62))
    assert first.phase == "void" and not engine.to_act(first)
    selfplay = _script().SelfPlay(engine, "wuren", seed=VOID_AT_ONCE)
    selfplay.run(0.05)
    assert selfplay.deals >= 1 and selfplay.decisions > 0
