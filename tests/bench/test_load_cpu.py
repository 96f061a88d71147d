"""The CPU accounting of ``make bench-load`` (bench/load/cpu.py): processes that exit during a
run (recycled gunicorn workers, the PostgreSQL backends of their closed connections) count
through their parent's reaped time, once each."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
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


def test_the_machine_line_counts_steal_as_busy_and_apart():
    # user nice system idle iowait irq softirq steal guest guest_nice, in clock ticks
    line = f"cpu  {7 * cpu.HZ} 0 {cpu.HZ} {50 * cpu.HZ} {2 * cpu.HZ} 0 0 {3 * cpu.HZ} 0 0"
    busy, steal = cpu.machine_times(line)
    assert (busy, steal) == (11.0, 3.0)  # 7 + 1 + 3: idle and iowait are not busy


def test_a_kernel_without_the_steal_column_reads_none():
    assert cpu.machine_times(f"cpu  {cpu.HZ} 0 0 {cpu.HZ} 0") == (1.0, 0.0)


def test_the_machine_is_read_from_proc_stat():
    busy, steal = cpu.machine_times()
    assert busy > 0 and 0 <= steal <= busy


def test_the_pace_is_the_best_of_three_in_thread_cpu_time(monkeypatch):
    # three runs that take 80, 60 and 70 ms of this thread's CPU: the pace is the fastest
    ticks = iter([0.0, 0.08, 1.0, 1.06, 2.0, 2.07])
    monkeypatch.setattr(cpu.time, "thread_time", lambda: next(ticks))
    assert cpu.pace_ms() == 60.0


def test_the_sampler_reads_the_pace_during_a_run_and_keeps_its_own_cpu_apart():
    sampler = cpu.PaceSampler(every=0.01).start()
    deadline = time.monotonic() + 10
    while len(sampler.samples) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    found = sampler.stop()
    assert found["samples"] >= 5
    assert 0 < found["p10"] <= found["p50"] <= found["p90"]
    memory = found["memory"]
    assert memory["samples"] == found["samples"]
    assert 0 < memory["p10"] <= memory["p50"] <= memory["p90"]
    # each pace sample is a tenth of the loop, scaled; the memory reads are counted as they
    # are: the sampler's own CPU is both
    own = sum(sampler.samples) / 10_000 + sum(sampler.memory) / 1000
    assert sampler.cpu_s == pytest.approx(own)
    assert not sampler._thread.is_alive()


def test_a_sampler_stopped_at_once_reports_no_pace():
    nothing = {"p10": None, "p50": None, "p90": None, "samples": 0}
    assert cpu.PaceSampler(every=60).start().stop() == {**nothing, "memory": nothing}


def test_the_memory_probe_reads_far_beyond_the_caches():
    """Its array is 64 MB and the reads are spread over all of it: each is a cache miss, so
    the probe is slower per read than the same number of reads from a small array."""
    data, where = cpu._memory()
    assert data.nbytes == cpu.MEMORY_MB * 2**20 and len(where) == cpu.MEMORY_READS
    assert where.max() > 0.9 * len(data) and where.min() < 0.1 * len(data)
    took = min(cpu.memory_work() for _ in range(3))
    small, near = data[:4096], where % 4096  # 32 kB: in the caches
    cached = []
    for _ in range(3):
        t0 = time.thread_time()
        int(small[near].sum())
        cached.append(time.thread_time() - t0)
    assert took > min(cached) > 0


def test_the_pace_of_this_machine_is_measured():
    assert 0 < cpu.pace_ms() < 5_000


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads Linux's /proc")
def test_a_live_thread_s_voluntary_switches_are_counted():
    """A thread of this process that sleeps 50 times switches voluntarily at least 50 times,
    and ``switches`` finds it among this process's threads; a process gone counts nothing."""
    me = os.getpid()
    release = threading.Event()
    slept = threading.Event()

    def naps():
        for _ in range(50):
            time.sleep(0.001)
        slept.set()
        release.wait(10)

    before = cpu.switches([me])
    worker = threading.Thread(target=naps)
    worker.start()
    try:
        assert slept.wait(10)
        after = cpu.switches([me])
    finally:
        release.set()
        worker.join(10)
    assert after[0] - before[0] >= 50
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert cpu.switches([gone.pid]) == (0, 0)


def test_kernel_side_counts_a_process_s_page_faults_and_only_the_processes_matched():
    """A child that touches 64 MB of new memory page by page makes at least as many minor
    page faults as pages it touched (4 KiB each; fewer with huge pages, so the bound is
    loose), and ``kernel_side`` counts them with its CPU; a matcher that accepts no process
    counts nothing."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, mmap\n"
            "m = mmap.mmap(-1, 64 << 20)\n"
            "for i in range(0, 64 << 20, 4096): m[i] = 1\n"
            "sys.stdout.write('touched\\n'); sys.stdout.flush(); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "touched\n"
        user, system, faults = cpu.kernel_side(lambda pid, pgrp, cmd: pid == child.pid)
    finally:
        child.communicate("", timeout=10)
    assert faults >= (64 << 20) // (2 << 20)  # at least one per 2 MB huge page
    assert user + system > 0
    assert cpu.kernel_side(lambda pid, pgrp, cmd: False) == (0.0, 0.0, 0)
