"""`scripts/start` repairs a half-made `.venv` (an install that was interrupted) as `scripts/test` does:
it checks that the service's packages import, not only that `.venv/bin/python` exists.

Run against a copy of the script with stand-in programs in `.venv/bin` (no network, no install): the
stand-in python fails the import check until the stand-in pip has "installed"."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

START = Path(__file__).resolve().parents[2] / "scripts" / "start"

PYTHON = """#!/bin/sh
case "$*" in
  *import*) [ -e "$(dirname "$0")/installed" ] || exit 1 ;;
esac
exit 0
"""
PIP = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/pip.log"
touch "$(dirname "$0")/installed"
"""
DONE = "#!/bin/sh\nexit 0\n"


def _program(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run_start(root: Path) -> subprocess.CompletedProcess:
    (root / "scripts").mkdir()
    shutil.copy(START, root / "scripts" / "start")
    env = {**os.environ, "VAR_DIR": str(root / "var")}
    command = ["bash", "scripts/start"]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=60)


def _half_made_venv(root: Path) -> Path:
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("python", PYTHON), ("pip", PIP), ("celery", DONE), ("uvicorn", DONE)):
        _program(bin_dir / name, text)
    return bin_dir


def test_a_half_made_venv_is_installed_again(tmp_path):
    bin_dir = _half_made_venv(tmp_path)
    done = _run_start(tmp_path)
    assert done.returncode == 0, done.stderr
    assert (bin_dir / "pip.log").exists(), "scripts/start used a .venv whose packages do not import"
    assert "install --quiet -e ." in (bin_dir / "pip.log").read_text()


def test_a_complete_venv_is_left_alone(tmp_path):
    bin_dir = _half_made_venv(tmp_path)
    (bin_dir / "installed").touch()
    done = _run_start(tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (bin_dir / "pip.log").exists()
