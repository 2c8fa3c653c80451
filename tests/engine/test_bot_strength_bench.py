"""bench/bot_strength.py's smoke run: the `hard` vs `normal` duplicate mode prints its per-preset and
pooled rows and the decision times (a tiny search budget keeps it quick)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from games.engine.bots import searching

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bot_strength.py"


def test_hard_vs_normal_duplicate_smoke_run(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("bot_strength_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
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
        ],
    )
    bench.main()
    out = capsys.readouterr().out
    assert "bot level hard" in out and "95% CI" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("pagat", "pooled"))]
    assert [r[:3] for r in rows] == [["pagat", "2", "normal"], ["pooled", "2", "normal"]]
    assert "bot_action decision time (cpu)" in out and "goal: p99 <= 250,000" in out
