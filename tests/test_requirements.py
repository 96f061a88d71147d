"""The requirement files pin each package once: a package pinned in two files at two
versions is installed at whichever file `make` installs last (requirements-ml.txt once kept
pytest at 9.2.0 after requirements-dev.txt pinned 9.1.1, and the suite then ran without its
xdist groups). And the suite runs on the pytest that is pinned."""

from __future__ import annotations

import re
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s;#]+)")


def pins() -> dict[str, dict[str, str]]:
    """``{package: {file: version}}`` over every requirements*.txt."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for path in sorted(ROOT.glob("requirements*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = PIN.match(line.strip())
            if match:
                name = re.sub(r"[-_.]+", "-", match.group(1).lower())
                found[name][path.name] = match.group(2)
    return found


def test_a_package_pinned_in_two_files_has_one_version():
    assert {name: files for name, files in pins().items() if len(set(files.values())) > 1} == {}


def test_the_suite_runs_on_the_pinned_pytest():
    assert set(pins()["pytest"].values()) == {version("pytest")}
