"""bench/engine_selfplay.py: its loop survives a deal that ends as it is dealt (docs/rules.md §3.4: a
wuren pile can go round with automatic declines and void the deal at once), and its baselines (another
checkout's engine, RLCard's Dou Dizhu) give each preset its ratio."""

import importlib.util
import random
from pathlib import Path

import pytest

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


def test_against_a_commit_prints_each_presets_ratio(monkeypatch, capsys):
    """`--against-commit` plays the engine of a checkout of that commit beside this one and prints
    the ratio issue 42's goal is stated in (3x the decisions per CPU second)."""
    script = _script()
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # as `python bench/engine_selfplay.py` finds support.py
    argv = ["engine_selfplay.py", "--seconds", "0.1", "--rounds", "1", "--preset", "weihai",
            "--against-commit", "HEAD"]
    monkeypatch.setattr("sys.argv", argv)
    script.main()
    out = capsys.readouterr().out
    assert "weihai (against)" in out
    ratio_line = next(line for line in out.splitlines() if line.startswith("weihai: "))
    assert ratio_line.endswith("x the decisions per CPU s of the --against engine")


def test_rlcard_plays_in_the_same_slices_and_each_preset_gets_its_ratio(monkeypatch, capsys):
    """`--rlcard` plays RLCard's Dou Dizhu beside the presets and prints the ratio issue 42's goal is
    stated in (3x its decisions per CPU second). Needs the `[bench]` extra; skipped without it."""
    pytest.importorskip("rlcard")
    script = _script()
    argv = ["engine_selfplay.py", "--seconds", "0.2", "--rounds", "2", "--preset", "weihai",
            "--preset", "laowang", "--rlcard"]
    monkeypatch.setattr("sys.argv", argv)
    script.main()
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("rlcard doudizhu"))
    assert int(row.split()[-1]) > 10  # decisions per deal: whole Dou Dizhu deals were played
    for name in ("weihai", "laowang"):
        ratio_line = next(line for line in out.splitlines() if line.startswith(f"{name}: "))
        assert ratio_line.endswith("x the decisions per CPU s of RLCard's Dou Dizhu (goal: 3x)")
        assert float(ratio_line.split()[1].rstrip("x")) > 0


def test_an_rlcard_deal_is_played_to_its_end_by_random_legal_actions():
    pytest.importorskip("rlcard")
    selfplay = _script().RLCardSelfPlay(seed=3)
    selfplay.run(0.2)
    assert selfplay.deals >= 1 and selfplay.decisions >= selfplay.deals * 3
