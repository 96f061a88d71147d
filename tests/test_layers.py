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
