"""The layers and the dependencies between the apps are declared as import-linter contracts
(`[tool.importlinter]` in pyproject.toml, docs/architecture.md "Module dependencies") and checked by
`lint-imports`, which reads every import statement, function-local ones included."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(*, cwd: Path, config: Path | None = None) -> subprocess.CompletedProcess:
    command = [str(LINT_IMPORTS), "--no-cache"]
    if config is not None:
        command += ["--config", str(config)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd)})


def test_the_project_keeps_its_import_contracts():
    done = _lint(cwd=ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_contracts_see_a_cycle_through_a_function_local_import_and_a_layer_broken(tmp_path):
    """The same kinds of contract as the project's, on a package that breaks each: a cycle closed by an
    import inside a function, and a lower layer importing a higher one."""
    package = tmp_path / "pkg"
    package.mkdir()
    files = {
        "__init__.py": "",
        "views.py": "from pkg import services\n",
        "services.py": "from pkg import writes\n",
        "writes.py": "def flush():\n    from pkg import services  # closes a cycle, and goes up a layer\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    config = tmp_path / "contracts.toml"
    config.write_text(textwrap.dedent("""
        [tool.importlinter]
        root_packages = ["pkg"]

        [[tool.importlinter.contracts]]
        name = "cycles"
        type = "acyclic_siblings"
        ancestors = ["pkg"]

        [[tool.importlinter.contracts]]
        name = "layers"
        type = "layers"
        layers = ["pkg.views", "pkg.services", "pkg.writes"]
    """))
    done = _lint(cwd=tmp_path, config=config)
    assert done.returncode == 1, done.stdout
    assert "cycles BROKEN" in done.stdout and "layers BROKEN" in done.stdout, done.stdout

    (package / "writes.py").write_text("def flush():\n    return None\n")
    done = _lint(cwd=tmp_path, config=config)
    assert done.returncode == 0, done.stdout
