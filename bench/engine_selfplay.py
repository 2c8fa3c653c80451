"""Random legal self-play for every preset: deals/s, decisions/s, mean and p99 of legal_actions.

A decision is one `legal_actions` for a seat to act plus one `apply_action` (CONTRACT §1). The
baseline printed alongside is the same loop over a trivial random walk (choose from a fixed list),
which shows the machine's speed in the same run, so figures from noisy machines can be compared.

    .venv/bin/python bench/engine_selfplay.py [--seconds 3] [--preset weihai]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import engine  # noqa: E402


def selfplay(preset_name: str, seconds: float, seed: int) -> dict:
    rules = engine.preset(preset_name)
    rng = random.Random(seed)
    legal_times: list[float] = []
    decisions = deals = 0
    clock = time.perf_counter
    started = clock()
    cpu_started = time.process_time()
    deadline = started + seconds
    while clock() < deadline:
        state = engine.new_deal(rules, seed=rng.getrandbits(62))
        while state.phase not in ("over", "void"):
            seats = engine.to_act(state)
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            t0 = clock()
            legal = engine.legal_actions(state, seat)
            legal_times.append(clock() - t0)
            state, _ = engine.apply_action(state, seat, legal[rng.randrange(len(legal))])
            decisions += 1
        deals += 1
    elapsed = clock() - started
    cpu = time.process_time() - cpu_started
    legal_times.sort()
    return {
        "preset": preset_name,
        "deals_per_s": deals / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_cpu_s": decisions / cpu,
        "legal_mean_us": statistics.fmean(legal_times) * 1e6,
        "legal_p99_us": legal_times[int(len(legal_times) * 0.99)] * 1e6,
        "decisions_per_deal": decisions / max(deals, 1),
    }


def baseline(seconds: float) -> float:
    """Loop overhead alone: random choice from a list and a tuple copy per 'decision'."""
    rng = random.Random(0)
    options = list(range(40))
    state = tuple(range(30))
    n = 0
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < end:
        for _ in range(1000):
            rng.choice(options)
            state = state[:-1] + (n,)
            n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset")
    parser.add_argument("--preset", choices=engine.PRESETS, action="append")
    args = parser.parse_args()
    print(f"baseline loop: {baseline(1.0):,.0f} iterations/s (machine speed reference)")
    # decisions per CPU second is the figure to compare on a busy machine: wall time counts the
    # moments another process had the core.
    print(f"{'preset':<18} {'deals/s':>8} {'decisions/s':>12} {'per CPU s':>10} {'legal mean us':>14} "
          f"{'legal p99 us':>13} {'dec/deal':>9}")
    total_decisions = total_time = 0.0
    for name in args.preset or engine.PRESETS:
        r = selfplay(name, args.seconds, seed=1)
        total_decisions += r["decisions_per_s"] * args.seconds
        total_time += args.seconds
        print(f"{r['preset']:<18} {r['deals_per_s']:>8.1f} {r['decisions_per_s']:>12,.0f} "
              f"{r['decisions_per_cpu_s']:>10,.0f} {r['legal_mean_us']:>14.1f} {r['legal_p99_us']:>13.1f} "
              f"{r['decisions_per_deal']:>9.0f}")
    print(f"all presets: {total_decisions / total_time:,.0f} decisions/s (goal: 30,000 on one core)")


if __name__ == "__main__":
    main()
