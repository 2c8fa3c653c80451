"""The quick tour (scripts/quick_tour.py) plays a whole deal against a live server.

The server refuses any card the mover does not hold (`422 card_not_in_hand`), and the script stops with
a non-zero status on any error, so a passing run played only cards it held.
"""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "quick_tour.py"

pytestmark = pytest.mark.django_db(transaction=True)


def test_quick_tour_plays_a_deal_to_its_final_view(live_server):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), live_server.url], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "final scores:" in result.stdout
    assert " plays " in result.stdout
