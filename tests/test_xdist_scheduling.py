"""`make test` runs the suite on pytest-xdist with `--dist loadgroup`: the tests of one serial
group (tests/conftest.py, SERIAL_GROUPS: faults, concurrency) must share one worker, and no
two tests may share a node id (xdist schedules by id: the second would silently not run).
pytest 9.2.0 broke both without an error; these run a small session the way `make test` does."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

from tests.conftest import duplicate_ids

SESSION = """
import os, time, pytest

@pytest.mark.xdist_group("serial")
@pytest.mark.parametrize("n", range(4))
def test_grouped(n):
    time.sleep(0.3)
    print(f"WORKER {os.environ['PYTEST_XDIST_WORKER']}")

@pytest.mark.parametrize("n", range(4))
def test_free(n):
    time.sleep(0.3)
"""


def test_a_serial_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_session.py").write_text(SESSION)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-v",
            "-s",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:django",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout
    assert done.returncode == 0, out[-2000:]
    grouped = [line for line in out.splitlines() if "test_grouped" in line and "PASSED" in line]
    assert len(grouped) == 4 and all("@serial" in line for line in grouped), out[-2000:]
    workers = {line.split("]")[0] for line in grouped}  # "[gw0" or "[gw1"
    assert len(workers) == 1, grouped


def test_tests_that_share_a_node_id_are_named():
    items = [SimpleNamespace(nodeid=n) for n in ("a.py::t[1]", "a.py::t", "a.py::t", "b.py::u")]
    assert duplicate_ids(items) == ["a.py::t"]
    assert duplicate_ids(items[:2]) == []
