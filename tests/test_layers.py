"""The layer rule, checked on every test run: imports point down only (ambisite < annotations
< studies, predictions < writing < dashboards) and no app has an import cycle. The contracts
are the ``[tool.importlinter]`` tables of pyproject.toml; CONTRIBUTING.md explains them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_imports_keep_the_layer_contracts():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_plugin_purity_and_writing_order_contracts_are_kept():
    """At least seven contracts, among them: backends/ml/prompts query nothing, pure maths
    imports no Django, writing's inner order (pyproject.toml)."""
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = " ".join(result.stdout.split())  # contract names wrap at 80 columns
    kept = [int(word) for word in output.split("Contracts: ")[1].split()[:1]]
    assert kept and kept[0] >= 7, output
    for name in (
        "never a run or a query KEPT",
        "Pure maths imports no Django",
        "Writing: views",
        "Wug's crowd studies write through studies.services only",
    ):
        assert name in output, output
