"""CPU accounting of one load run from /proc: the web server's process group, the PostgreSQL
backends of the run's database, the generator and the rest of the machine (Linux only).

A process that exits during a run takes its CPU time out of the live processes and into its
parent's cumulative children time (fields cutime + cstime of /proc/<parent>/stat, once the
parent has reaped it): gunicorn's master for a worker recycled by ``max_requests``, the
postmaster for a backend whose connection closed (such a worker's). A run's CPU is therefore
the change of (live processes + what their parent reaped) between two samples; ``used`` does
that sum, apart from /proc so that it can be tested.

The same code's CPU per item moves with the machine's pace (a virtual core on a busy host),
so each run also records it: the hypervisor's steal time from /proc/stat, and ``pace_ms``,
the CPU time of a fixed piece of Python, before, during (``PaceSampler``) and after the run.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HZ = os.sysconf("SC_CLK_TCK")

Match = Callable[[int, int, str], bool]  # (pid, pgrp, cmdline)


@dataclass(frozen=True)
class Sample:
    """CPU seconds at one moment: each live process matched, keyed by (pid, start time in
    clock ticks since boot: a reused pid is another process), and what their parent had
    reaped so far (its children's exited CPU)."""

    live: dict[tuple[int, int], float] = field(default_factory=dict)
    reaped: float = 0.0


@dataclass(frozen=True)
class Used:
    total: float  # every matched process's CPU between the two samples
    exited: float  # the part of it used by processes that exited between them


def used(start: Sample, end: Sample) -> Used:
    """CPU used between ``start`` and ``end``: the live processes' growth plus what their
    parent reaped in between. A process live at ``start`` that exited is in the parent's
    reaped time with its whole life, so its CPU before ``start`` (its ``start.live`` value) is
    taken off, not counted twice; one born and gone in between is in the reaped time only."""
    reaped = end.reaped - start.reaped
    gone = sum(cpu for key, cpu in start.live.items() if key not in end.live)
    # rounded to the microsecond: the inputs are clock ticks (1/100 s), and their float sums
    # and differences left -1.7e-16 s for a process that used nothing after the start
    return Used(
        total=round(sum(end.live.values()) - sum(start.live.values()) + reaped, 6),
        exited=round(reaped - gone, 6),
    )


def _stat(pid: int | str) -> list[str]:
    """/proc/<pid>/stat from the state on (field 3), past the command's name, which may hold
    spaces: index 1 is the parent, 2 the process group, 11-14 utime, stime, cutime, cstime,
    19 the start time."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def reaped_cpu(pid: int | None) -> float:
    """CPU seconds of the children ``pid`` has reaped (none without a ``pid``)."""
    if pid is None:
        return 0.0
    try:
        stat = _stat(pid)
    except OSError:
        return 0.0
    return (int(stat[13]) + int(stat[14])) / HZ


def matched(match: Match) -> Iterator[tuple[int, list[str]]]:
    """(pid, ``_stat`` fields) of each live process ``match(pid, pgrp, cmdline)`` accepts."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = _stat(pid)
        except OSError:
            continue
        if match(int(pid), int(stat[2]), cmd):
            yield int(pid), stat


def sample(match: Match, parent: int | None) -> Sample:
    """The live processes ``match(pid, pgrp, cmdline)`` accepts and what ``parent`` reaped."""
    live = {
        (pid, int(stat[19])): (int(stat[11]) + int(stat[12])) / HZ for pid, stat in matched(match)
    }
    return Sample(live, reaped_cpu(parent))


def kernel_side(match: Match) -> tuple[float, float, int]:
    """(user s, system s, minor page faults) of the live processes ``match(pid, pgrp,
    cmdline)`` accepts, so far: the system part is the kernel working for them (their
    sockets, their page faults), which a slower run of the same code can have more of
    while its Python (user) part stays; processes that exit meanwhile are not counted."""
    stats = [stat for _, stat in matched(match)]
    user = sum(int(stat[11]) for stat in stats) / HZ
    system = sum(int(stat[12]) for stat in stats) / HZ
    return user, system, sum(int(stat[7]) for stat in stats)


def postmaster_pid(database: str) -> int | None:
    """The parent of the PostgreSQL processes ("postgres: ..." command lines), preferring
    that of a backend of ``database`` where several clusters run; None if there is none."""
    parents, ours = set(), set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if cmd.startswith("postgres:"):
                parent = int(_stat(pid)[1])
        except OSError:
            continue
        if cmd.startswith("postgres:"):
            parents.add(parent)
            if f" {database} " in cmd:
                ours.add(parent)
    found = ours or parents
    return found.pop() if len(found) == 1 else None


def group_workers(pgid: int) -> dict[int, list[str]]:
    """The /proc stat fields of each live process of group ``pgid`` but its leader
    (gunicorn's workers: the server's group is its master's), by pid."""
    return dict(matched(lambda pid, pgrp, cmd: pgrp == pgid and pid != pgid))


def worker_cpu(server_pgid: int, since_ticks: float) -> tuple[list[float], int]:
    """CPU seconds of each of the server's workers (``group_workers``), most first: how
    evenly the requests spread over them; and how many of them started after
    ``since_ticks`` (clock ticks since boot): replacements of workers recycled by
    ``max_requests`` during the run, whose CPU is not in the list."""
    stats = group_workers(server_pgid).values()
    found = [round((int(stat[11]) + int(stat[12])) / HZ, 1) for stat in stats]
    replaced = sum(int(stat[19]) > since_ticks for stat in stats)
    return sorted(found, reverse=True), replaced


def switches(pids: list[int]) -> tuple[int, int]:
    """(voluntary, involuntary) context switches of every thread of ``pids`` so far, from
    /proc/<pid>/task/*/status (a process gone meanwhile counts nothing). Involuntary ones are
    the scheduler taking the core from a thread that could have gone on: with more runnable
    threads than cores, a gunicorn thread holding the GIL is preempted and its process's
    other threads wait for it."""
    voluntary = involuntary = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                status = Path(f"/proc/{pid}/task/{task}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    voluntary += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    involuntary += int(line.split()[1])
    return voluntary, involuntary


def boot_ticks() -> float:
    """Clock ticks since boot (the unit of a process's start time in /proc)."""
    return float(Path("/proc/uptime").read_text().split()[0]) * HZ


def machine_times(first_line: str | None = None) -> tuple[float, float]:
    """(busy, steal): CPU seconds of the whole machine since boot, all cores, from the first
    line of /proc/stat (``first_line``, else read now). Busy is every state but idle and
    iowait, steal included; steal is the time a virtual core wanted to run and the
    hypervisor ran something else (another tenant): work the machine did not get to do."""
    if first_line is None:
        first_line = Path("/proc/stat").read_text().split("\n", 1)[0]
    fields = [int(x) for x in first_line.split()[1:]]
    fields += [0] * (8 - len(fields))  # kernels before 2.6.11 print no steal column
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / HZ, fields[7] / HZ


PACE_LOOP = 300_000


def pace_work(steps: int) -> float:
    """CPU seconds this thread takes for ``steps`` additions and dict stores, the kind of
    pure Python a web request is made of."""
    t0 = time.thread_time()
    d: dict[int, int] = {}
    total = 0
    for i in range(steps):
        total += i
        d[i & 1023] = total
    return time.thread_time() - t0


def pace_ms() -> float:
    """The machine's pace now: CPU milliseconds of ``pace_work(PACE_LOOP)``, best of three.
    CPU time, not wall time: other processes competing for the cores do not count, a slower
    core (a busier host, a lower clock) does, so the same code's CPU per item can be read
    against it."""
    return round(min(pace_work(PACE_LOOP) for _ in range(3)) * 1000, 1)


MEMORY_MB = 64
MEMORY_READS = 100_000


@functools.cache
def _memory() -> tuple:
    """A 64 MB array and a fixed order of random positions in it: 16 times a core's L2 cache
    on the development machines; twice the L3 cache of 2026-11-28's machine (32 MB), within
    that of 2026-11-29's (260 MB)."""
    import numpy as np  # only here: the rest of the module is the standard library

    rng = np.random.default_rng(0)
    return np.arange(MEMORY_MB * 2**20 // 8, dtype=np.int64), rng.integers(
        0, MEMORY_MB * 2**20 // 8, MEMORY_READS
    )


def memory_work() -> float:
    """CPU seconds this thread takes for ``MEMORY_READS`` reads at random places of a 64 MB
    array: mostly waiting for the shared cache or memory (the reads miss a core's own
    caches), which the pure-Python ``pace_work`` (its data in those caches) does not show.
    A host whose neighbours contend for memory bandwidth or the shared cache runs this
    slower, and a web request (Django's objects, PostgreSQL's buffers) with it."""
    data, where = _memory()
    t0 = time.thread_time()
    int(data[where].sum())
    return time.thread_time() - t0


class PaceSampler:
    """The machine's pace during a run: every ``every`` s a tenth of ``pace_work(PACE_LOOP)``
    on its own thread (its CPU time only, so the run's load does not count), scaled to
    milliseconds per ``PACE_LOOP``. Its own CPU (about 1 % of a core) is kept apart, for the
    generator's figure to leave it out."""

    def __init__(self, every: float = 0.5):
        self.every, self.samples, self.memory, self.cpu_s = every, [], [], 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pace", daemon=True)

    def _run(self) -> None:
        _memory()  # built before the first sample, outside the count
        while not self._stop.wait(self.every):
            took = pace_work(PACE_LOOP // 10)
            waited = memory_work()
            self.cpu_s += took + waited
            self.samples.append(took * 10_000)
            self.memory.append(waited * 1000)

    def start(self) -> PaceSampler:
        self._thread.start()
        return self

    def stop(self) -> dict:
        """p10, p50 and p90 of the samples (ms per ``PACE_LOOP``) and their count, and under
        ``memory`` those of ``memory_work`` (ms)."""
        self._stop.set()
        self._thread.join()
        return {**_quantiles(self.samples), "memory": _quantiles(self.memory)}


def _quantiles(samples: list[float]) -> dict[str, float | int | None]:
    ordered = sorted(samples)

    def at(q: float) -> float | None:
        return round(ordered[int(q * (len(ordered) - 1))], 1) if ordered else None

    return {"p10": at(0.1), "p50": at(0.5), "p90": at(0.9), "samples": len(ordered)}


class Meter:
    """CPU split of one run: web (the server's process group), PostgreSQL (backends of the
    run's database, those that exited during the run included), generator (this process) and
    the rest of the machine."""

    def __init__(self, server_pgid: int, database: str | None, workers: int):
        self.expected = workers
        self.database = database
        self.ticks0 = float("inf")
        self.postmaster: int | None = None
        self.workers = lambda: worker_cpu(server_pgid, self.ticks0)
        self.switches = lambda: switches(list(group_workers(server_pgid)))
        web: Match = lambda pid, pgrp, cmd: pgrp == server_pgid  # noqa: E731
        pg: Match = lambda pid, pgrp, cmd: (  # noqa: E731
            database is not None and cmd.startswith("postgres:") and f" {database} " in cmd
        )
        self.web = lambda: sample(web, server_pgid)
        self.pg = lambda: sample(pg, self.postmaster) if database else Sample()
        self.kernel = lambda: (kernel_side(web), kernel_side(pg))

    def start(self) -> None:
        # every worker up (one answering is not all forked), so that a later one is a
        # replacement
        deadline = time.monotonic() + 20
        while len(self.workers()[0]) < self.expected and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.database:
            self.postmaster = postmaster_pid(self.database)
        self.pace_before = pace_ms()  # the server idle: before its first request
        self.pace = PaceSampler().start()
        self.switches0 = self.switches()
        self.kernel0 = self.kernel()
        t = os.times()
        self.t0 = (self.web(), self.pg(), t.user + t.system, machine_times(), time.perf_counter())
        self.load0 = os.getloadavg()[0]
        self.ticks0 = boot_ticks()
        self.arrivals: dict | None = None

    def mark_arrivals(self) -> None:
        """CPU seconds of web and PostgreSQL from the start until every participant is past
        its arrival (called once, from the generator's event loop)."""
        web, pg, wall = self.web(), self.pg(), time.perf_counter()
        busy, steal = machine_times()
        self.arrivals = {
            "wall_s": round(wall - self.t0[4], 2),
            "web_s": round(used(self.t0[0], web).total, 2),
            "postgresql_s": round(used(self.t0[1], pg).total, 2),
            # the whole machine: with the cores all busy the arrivals wait for CPU, not for
            # each other, and no order of the requests lets them all in sooner
            "machine_s": round(busy - self.t0[3][0], 2),
            "steal_s": round(steal - self.t0[3][1], 2),
            "cores": os.cpu_count(),
        }

    def stop(self) -> dict:
        pace = self.pace.stop()
        t = os.times()
        web_now, pg_now = self.web(), self.pg()
        web, pg = used(self.t0[0], web_now), used(self.t0[1], pg_now)
        own = t.user + t.system - self.t0[2]  # this process: the generator and the sampler
        gen = own - self.pace.cpu_s
        busy, steal = (now - then for now, then in zip(machine_times(), self.t0[3]))
        wall = time.perf_counter() - self.t0[4]
        workers, replaced = self.workers()
        voluntary, involuntary = (n - n0 for n, n0 in zip(self.switches(), self.switches0))
        kernel = {
            name: {
                "user_s": round(now[0] - then[0], 2),
                "system_s": round(now[1] - then[1], 2),
                "minor_faults": now[2] - then[2],
            }
            for name, now, then in zip(("web", "postgresql"), self.kernel(), self.kernel0)
        }
        pace_after = pace_ms()  # after the run's own CPU was read: not counted in it
        return {
            "wall_s": round(wall, 1),
            "web_s": round(web.total, 1),
            "postgresql_s": round(pg.total, 1),
            # of which backends that exited during the run (their connection closed, e.g. by
            # a recycled worker); read from the postmaster, which reaps the backends of every
            # database of the cluster: on a shared server, others' closed connections too
            "postgresql_exited_s": round(pg.exited, 1),
            "generator_s": round(gen, 1),
            "other_s": round(max(0.0, busy - steal - web.total - pg.total - own), 1),
            "machine_busy_pct": round(100 * busy / (wall * (os.cpu_count() or 1)), 1),
            # of the machine's cores x wall time, the share the hypervisor gave to others
            # (in busy, not in any process's CPU): the same code runs slower when it is high
            "steal_s": round(steal, 1),
            "steal_pct": round(100 * steal / (wall * (os.cpu_count() or 1)), 1),
            # pace_ms before the run (server idle) and after it, and PaceSampler's during
            # it: a run whose CPU per item is high on a slow pace is the machine, not the code
            "pace_ms": [self.pace_before, pace_after],
            "pace_during_ms": pace,
            "load_avg_1m": [round(self.load0, 2), round(os.getloadavg()[0], 2)],
            "until_arrivals": self.arrivals,
            # per live worker since it started, most first; the largest share of the web CPU
            # bounds the run: a process runs Python on one core at a time
            "web_workers_s": workers,
            # workers recycled by max_requests during the run (the replacements among the
            # live ones above; run_ambisite counts them all) and the CPU of those replaced
            "replaced_workers": replaced,
            "replaced_workers_s": round(web.exited, 1),
            # the live workers' threads, during the run (a recycled worker's are lost)
            "web_switches": {"voluntary": voluntary, "involuntary": involuntary},
            # the live processes' user and system (kernel) CPU and minor page faults during
            # the run (kernel_side): where a slow run's extra CPU per item is spent
            "kernel_side": kernel,
        }
