"""First visit after an import, precomputed (part of ``bench/dashboards.py``): the dashboards'
cache emptied (nothing computed for the data yet, as after an import), then the precompute
task (``dashboards.tasks.precompute_pages``: the default scope of every page and endpoint,
:mod:`dashboards.precompute`) run here, inline, as the Celery worker would after the import's
commit (**precompute**: its wall and CPU time, how long after the import the first visit
finds every default page cached), then each page requested once (**first visit**), with the
number of cached values it **computed** itself (0: all from the cache; a page with its own
sort, run, setup or paired comparison computes those, reusing the pieces the precompute
shared; the setup view caches nothing).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def time_precomputed(client, urls: dict[str, str], clear: Callable[[], None]) -> None:
    from dashboards import background
    from dashboards.precompute import default_paths
    from dashboards.tasks import precompute_pages

    clear()
    start, start_cpu = time.perf_counter(), time.process_time()
    precompute_pages()
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    print(
        f"\n  first visit after an import, precomputed (the task run inline first: "
        f"{wall:.3f} s wall, {cpu:.3f} s CPU, {len(default_paths())} default pages)"
    )
    print(f"  {'page':40s} {'computed':>8s} {'first s':>8s} {'CPU s':>8s}")
    computed, computing = [0], background.computing

    @contextmanager
    def counted() -> Iterator[None]:
        computed[0] += 1
        with computing():
            yield

    background.computing = counted
    try:
        for label, url in urls.items():
            computed[0] = 0
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            assert response.status_code == 200, (url, response.status_code)
            print(f"  {label:40s} {computed[0]:8d} {took:8.3f} {took_cpu:8.3f}", flush=True)
    finally:
        background.computing = computing
