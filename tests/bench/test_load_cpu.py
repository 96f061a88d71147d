"""The CPU accounting of ``make bench-load`` (bench/load/cpu.py): processes that exit during a
run (recycled gunicorn workers, the PostgreSQL backends of their closed connections) count
through their parent's reaped time, once each."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "load"))

import cpu  # noqa: E402
from cpu import Sample, used  # noqa: E402

pytestmark = pytest.mark.bench


def test_a_process_live_throughout_counts_its_growth():
    start = Sample({(10, 1): 2.0}, reaped=5.0)
    end = Sample({(10, 1): 3.5}, reaped=5.0)
    assert used(start, end) == cpu.Used(total=1.5, exited=0.0)


def test_a_process_that_exits_counts_only_its_cpu_after_the_start():
    # live at the start with 2 s, exits having used 3 s in all: its parent reaps all 3 s
    start = Sample({(10, 1): 2.0, (11, 1): 1.0}, reaped=5.0)
    end = Sample({(11, 1): 1.25}, reaped=8.0)
    assert used(start, end) == cpu.Used(total=1.25, exited=1.0)


def test_a_process_born_and_gone_during_the_run_counts_in_full():
    start = Sample({(11, 1): 1.0}, reaped=5.0)
    end = Sample({(11, 1): 1.0}, reaped=5.75)
    assert used(start, end) == cpu.Used(total=0.75, exited=0.75)


def test_a_process_born_during_the_run_and_still_live_counts_in_full():
    start = Sample({}, reaped=0.0)
    end = Sample({(12, 900): 0.5}, reaped=0.0)
    assert used(start, end) == cpu.Used(total=0.5, exited=0.0)


def test_a_reused_pid_is_another_process():
    # pid 10 exited (2.5 s in all, reaped) and a new process got pid 10 (0.25 s so far)
    start = Sample({(10, 1): 2.0}, reaped=0.0)
    end = Sample({(10, 700): 0.25}, reaped=2.5)
    assert used(start, end) == cpu.Used(total=0.75, exited=0.5)


def test_a_process_that_used_nothing_after_the_start_counts_zero_not_a_rounding_error():
    # live at the start with 0.01 s, exited without using more; its parent reaped 0.07 -> 0.08
    # (in floats, 0.08 - 0.07 - 0.01 is -5.2e-18: a CI run once failed on such a total)
    used_ = used(Sample({(10, 1): 0.01}, reaped=0.07), Sample({}, reaped=0.08))
    assert used_ == cpu.Used(total=0.0, exited=0.0)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_a_child_that_exits_is_counted_through_its_parents_reaped_time():
    """This test process as the parent: a child burning CPU, sampled live, then reaped."""
    me = os.getpid()
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.3: pass\ntime.sleep(30)",
        ]
    )
    try:

        def mine(pid: int, pgrp: int, cmd: str) -> bool:
            return pid == child.pid

        deadline = time.monotonic() + 20
        start = cpu.sample(mine, me)
        while sum(start.live.values()) < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
            start = cpu.sample(mine, me)
        assert start.live, "the child is not seen live"
    finally:
        child.kill()
        child.wait()
    end = cpu.sample(mine, me)
    assert end.live == {}
    result = used(start, end)
    # its CPU before the start is not counted again; a kill leaves little after it
    assert 0.0 <= result.total < 0.2
    assert result.exited == pytest.approx(result.total)
