"""bench/bot_strength.py's smoke run: the `hard` vs `normal` duplicate mode prints its per-preset and
pooled rows, the side win rates and the decision times (a tiny search budget keeps it quick); the
tuning and held-out seed sets share no deal (docs/bots.md "Tuning and held-out deals")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from games import engine
from games.engine.bots import searching

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bot_strength.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bot_strength_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_seed_sets_are_disjoint_and_fixed():
    bench = _bench()
    assert set(bench.SEED_SETS) == {"tuning", "heldout"}
    last = bench.DEALS_PER_PRESET - 1
    spans = {
        name: (bench._deal_seed(engine.PRESETS[0], 0, name), bench._deal_seed(engine.PRESETS[-1], last, name))
        for name in bench.SEED_SETS
    }
    (low_a, high_a), (low_b, high_b) = sorted(spans.values())
    assert high_a < low_b
    # The tuning set keeps the seeds the search was tuned on before the sets had names.
    assert bench._deal_seed("wuren", 7) == engine.PRESETS.index("wuren") * 1_000_003 + 7
    with pytest.raises(ValueError):
        bench._deal_seed("wuren", bench.DEALS_PER_PRESET, "tuning")


def test_hard_vs_normal_duplicate_smoke_run(monkeypatch, capsys):
    bench = _bench()
    monkeypatch.setattr(searching, "DECISION_BUDGET", 60)
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "bot_strength.py",
            "--bot",
            "hard",
            "--baselines",
            "normal",
            "--deals",
            "2",
            "--presets",
            "pagat",
            "--processes",
            "1",
            "--seeds",
            "heldout",
        ],
    )
    bench.main()
    out = capsys.readouterr().out
    assert "bot level hard; seeds heldout" in out and "95% CI" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("pagat", "pooled"))]
    assert [r[:3] for r in rows] == [["pagat", "2", "normal"], ["pooled", "2", "normal"]]
    # The last two columns: the side win rates of the normal and the hard seat, in percent.
    for row in rows:
        assert all(cell.endswith("%") and 0 <= float(cell[:-1]) <= 100 for cell in row[-2:])
    assert "bot_action decision time (cpu)" in out and "goal: p99 <= 250,000" in out
    assert "hard decisions: " in out and "s per seat and deal" in out
    assert "advantage by the seat's role" in out and "  pagat " in out and "commoner" in out


def test_rows_carry_a_measurement_over_short_runs(monkeypatch, capsys, tmp_path):
    """`--rows FILE`: a second run with more deals plays only the deals the first did not and
    reports on all of them; a run of another measurement (other seeds) does not count them."""
    bench = _bench()
    rows = tmp_path / "rows.jsonl"
    played = []
    real_play = bench.play

    def play(rules, seed, *args, **kwargs):
        played.append(seed)
        return real_play(rules, seed, *args, **kwargs)

    monkeypatch.setattr(bench, "play", play)

    def run(deals: int, seeds: str) -> list[str]:
        argv = ["bot_strength.py", "--bot", "easy", "--baselines", "normal", "--deals", str(deals),
                "--presets", "wuren", "--processes", "1", "--seeds", seeds, "--rows", str(rows)]
        monkeypatch.setattr(sys, "argv", argv)
        bench.main()
        return next(line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("wuren"))

    assert run(2, "tuning")[:2] == ["wuren", "2"]
    first = set(played)
    played.clear()
    assert run(3, "tuning")[:2] == ["wuren", "3"]
    assert set(played) == {bench._deal_seed("wuren", 2)} and not first & set(played)
    played.clear()
    assert run(1, "heldout")[:2] == ["wuren", "1"]
    assert set(played) == {bench._deal_seed("wuren", 0, "heldout")}
