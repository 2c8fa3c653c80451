"""Random legal self-play for every preset: deals/s, decisions/s, mean and p99 of legal_actions.

A decision is one `legal_actions` for a seat to act plus one `apply_action` (docs/engine.md). The
baseline printed alongside is the same loop over a trivial random walk (choose from a fixed list),
which shows the machine's speed in the same run, so figures from noisy machines can be compared.
The presets take turns in short slices (`--rounds`), so a change in the machine's load falls on
all of them alike; `legal_actions` is timed in wall time and, one call in CPU_SAMPLE, in the
thread's CPU time (whose p99 leaves out the moments another process had the core). The last lines
compare laowang with weihai (issue 8: laowang within 2x of weihai). `--against DIR` also plays the engine of
another checkout (e.g. `git worktree add /tmp/before <commit>`), slice for slice with this one, for
before/after figures measured under the same load; `--against-commit REV` extracts that checkout
itself (bench/support.py `baseline_tree`, git archive). With either, the last lines give each
preset's decisions per CPU second of this engine over the other's. `--rlcard` also plays RLCard's
raw Dou Dizhu game (`rlcard.games.doudizhu.Game`, the `[bench]` extra) with random legal actions, in
the same slices; a decision there is one `step`, which also lists the next player's legal actions.
The last lines then give each preset's decisions per CPU second over RLCard's (issue 42's goal: 3x).

    .venv/bin/python bench/engine_selfplay.py [--seconds 3] [--rounds 6] [--preset weihai] [--against DIR]
    nice -n 19 .venv/bin/python bench/engine_selfplay.py --seconds 20 --against-commit main --rlcard
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import engine  # noqa: E402

# The thread's CPU clock costs a system call (about 0.7 us, a few per cent of a decision): it times
# one `legal_actions` in this many, so the decisions per CPU second compared with RLCard's loop
# (which times nothing inside a decision) carry little of the measuring itself.
CPU_SAMPLE = 8


class SelfPlay:
    """One preset's random self-play, resumable: each `run` plays on for a time slice."""

    def __init__(self, engine_module, preset_name: str, seed: int, label: str = ""):
        self.engine = engine_module
        self.preset = preset_name
        self.label = preset_name + label
        self.rules = engine_module.preset(preset_name)
        self.rng = random.Random(seed)
        self.state = None
        # Arrays of doubles, not lists of floats: a list is a container the garbage collector walks
        # at every full collection, and millions of timings walked cost the engine measured here
        # (not RLCard's loop, which keeps none) time that is the bench's, not the engine's.
        self.legal_wall = array("d")
        self.legal_cpu = array("d")
        self.decisions = self.deals = 0
        self.elapsed = self.cpu = 0.0

    def run(self, seconds: float) -> None:
        rng, engine = self.rng, self.engine
        clock, cpu_clock = time.perf_counter, time.thread_time
        legal_wall, legal_cpu = self.legal_wall, self.legal_cpu
        started, cpu_started = clock(), time.process_time()
        deadline = started + seconds
        state = self.state
        while clock() < deadline:
            if state is None or state.phase in ("over", "void"):
                if state is not None:
                    self.deals += 1
                # A deal can end as it is dealt (a wuren pile going round with automatic declines
                # is void at once, docs/rules.md §3.4): check the phase again before asking to_act.
                state = engine.new_deal(self.rules, seed=rng.getrandbits(62))
                continue
            seats = engine.to_act(state)
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            if self.decisions % CPU_SAMPLE:
                t0 = clock()
                legal = engine.legal_actions(state, seat)
                legal_wall.append(clock() - t0)
            else:
                t0, c0 = clock(), cpu_clock()
                legal = engine.legal_actions(state, seat)
                c1, t1 = cpu_clock(), clock()
                legal_wall.append(t1 - t0)
                legal_cpu.append(c1 - c0)
            state, _ = engine.apply_action(state, seat, legal[rng.randrange(len(legal))])
            self.decisions += 1
        self.state = state
        self.elapsed += clock() - started
        self.cpu += time.process_time() - cpu_started

    def figures(self) -> dict:
        wall, cpu = sorted(self.legal_wall), sorted(self.legal_cpu)
        return {
            "preset": self.label,
            "deals_per_s": self.deals / self.elapsed,
            "decisions_per_s": self.decisions / self.elapsed,
            "decisions_per_cpu_s": self.decisions / self.cpu,
            "legal_mean_us": statistics.fmean(wall) * 1e6,
            "legal_p99_us": wall[int(len(wall) * 0.99)] * 1e6,
            "legal_p99_cpu_us": cpu[int(len(cpu) * 0.99)] * 1e6,
            "decisions_per_deal": self.decisions / max(self.deals, 1),
        }


class RLCardSelfPlay:
    """RLCard's Dou Dizhu game played by random legal actions, resumable like `SelfPlay`. Its legal
    actions are listed inside `step` (for the next player), so only whole decisions are timed."""

    label = "rlcard doudizhu"

    def __init__(self, seed: int):
        import numpy
        from rlcard.games.doudizhu import Game

        self.game = Game()
        self.game.np_random = numpy.random.RandomState(seed)  # the deal's only randomness
        self.rng = random.Random(seed)
        self.state = None
        self.decisions = self.deals = 0
        self.elapsed = self.cpu = 0.0

    def run(self, seconds: float) -> None:
        rng, game = self.rng, self.game
        clock = time.perf_counter
        started, cpu_started = clock(), time.process_time()
        deadline = started + seconds
        state = self.state
        while clock() < deadline:
            if state is None or game.is_over():
                if state is not None:
                    self.deals += 1
                state, _ = game.init_game()
                continue
            legal = state["actions"]
            state, _ = game.step(legal[rng.randrange(len(legal))])
            self.decisions += 1
        self.state = state
        self.elapsed += clock() - started
        self.cpu += time.process_time() - cpu_started

    def figures(self) -> dict:
        untimed = float("nan")  # printed as nan: not timed apart from the step
        return {
            "preset": self.label,
            "deals_per_s": self.deals / self.elapsed,
            "decisions_per_s": self.decisions / self.elapsed,
            "decisions_per_cpu_s": self.decisions / self.cpu,
            "legal_mean_us": untimed, "legal_p99_us": untimed, "legal_p99_cpu_us": untimed,
            "decisions_per_deal": self.decisions / max(self.deals, 1),
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


def load_engine(root: str):
    """The `games.engine` package of another checkout, imported under another name."""
    init = Path(root) / "games" / "engine" / "__init__.py"
    spec = importlib.util.spec_from_file_location("engine_against", init,
                                                  submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_against"] = module
    spec.loader.exec_module(module)
    return module


def compare(figures: dict, slow: str, reference: str, label: str = "") -> None:
    if slow + label not in figures or reference + label not in figures:
        return
    slow_figures, reference_figures = figures[slow + label], figures[reference + label]

    def ratio(key: str) -> float:
        return slow_figures[key] / reference_figures[key]

    print(f"{slow}{label} / {reference}{label} (goal: at most 2x): legal p99 {ratio('legal_p99_us'):.2f}x, "
          f"legal p99 CPU {ratio('legal_p99_cpu_us'):.2f}x, legal mean {ratio('legal_mean_us'):.2f}x, "
          f"self-play {1 / ratio('decisions_per_cpu_s'):.2f}x slower (decisions per CPU s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset")
    parser.add_argument("--rounds", type=int, default=6, help="slices each preset's time is cut into")
    parser.add_argument("--preset", choices=engine.PRESETS, action="append")
    parser.add_argument("--against", metavar="DIR", help="also play the engine of this checkout")
    parser.add_argument("--against-commit", metavar="REV", help="--against a checkout of this commit")
    parser.add_argument("--rlcard", action="store_true",
                        help="also play RLCard's Dou Dizhu game (pip install '.[bench]')")
    args = parser.parse_args()
    if args.against_commit:
        from support import baseline_tree  # bench/support.py (found beside this script)

        revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.against_commit],
                                  check=True, capture_output=True, text=True).stdout.strip()
        args.against = str(baseline_tree(revision))
        print(f"against: commit {revision} ({args.against})")
    print(f"baseline loop: {baseline(1.0):,.0f} iterations/s (machine speed reference)")
    names = args.preset or engine.PRESETS
    runs = [SelfPlay(engine, name, seed=1) for name in names]
    if args.against:
        other = load_engine(args.against)
        runs = [run for name, this in zip(names, runs)
                for run in (this, SelfPlay(other, name, seed=1, label=" (against)"))]
    slice_seconds = args.seconds / args.rounds
    slices = [(selfplay, slice_seconds) for selfplay in runs]
    if args.rlcard:
        rlcard = RLCardSelfPlay(seed=1)
        # A short RLCard slice after each preset's, adding up to one preset's time: its figure sees
        # the load all of them saw.
        slices = [pair for this in slices
                  for pair in (this, (rlcard, slice_seconds / len(runs)))]
        runs.append(rlcard)
    for _ in range(args.rounds):
        for selfplay, seconds in slices:
            selfplay.run(seconds)
    # decisions per CPU second is the figure to compare on a busy machine: wall time counts the
    # moments another process had the core.
    print(f"{'preset':<28} {'deals/s':>8} {'decisions/s':>12} {'per CPU s':>10} {'legal mean us':>14} "
          f"{'legal p99 us':>13} {'p99 CPU us':>11} {'dec/deal':>9}")
    figures = {}
    total_decisions = total_time = 0.0
    for selfplay in runs:
        r = figures[selfplay.label] = selfplay.figures()
        if isinstance(selfplay, SelfPlay):  # the goal is this engine's
            total_decisions += selfplay.decisions
            total_time += selfplay.elapsed
        print(f"{r['preset']:<28} {r['deals_per_s']:>8.1f} {r['decisions_per_s']:>12,.0f} "
              f"{r['decisions_per_cpu_s']:>10,.0f} {r['legal_mean_us']:>14.1f} {r['legal_p99_us']:>13.1f} "
              f"{r['legal_p99_cpu_us']:>11.1f} {r['decisions_per_deal']:>9.0f}")
    print(f"all runs: {total_decisions / total_time:,.0f} decisions/s (goal: 30,000 on one core)")
    compare(figures, "laowang", "weihai")
    if args.against:
        compare(figures, "laowang", "weihai", " (against)")
        for name in names:
            ratio = figures[name]["decisions_per_cpu_s"] / figures[name + " (against)"]["decisions_per_cpu_s"]
            print(f"{name}: {ratio:.2f}x the decisions per CPU s of the --against engine")
    if args.rlcard:
        rlcard_rate = figures[RLCardSelfPlay.label]["decisions_per_cpu_s"]
        for name in names:
            ratio = figures[name]["decisions_per_cpu_s"] / rlcard_rate
            print(f"{name}: {ratio:.2f}x the decisions per CPU s of RLCard's Dou Dizhu (goal: 3x)")


if __name__ == "__main__":
    main()
