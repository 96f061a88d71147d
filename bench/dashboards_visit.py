"""Pages as a researcher opens them after a write (part of ``bench/dashboards.py``): the
leaderboard, its paired comparison, its intervals and the label-distribution chart in turn;
the agreement page and the intervals it fetches. Cold each time, two ways in alternation:

* **each alone**: the dashboards' cache emptied before every page, so each reads and builds
  its inputs itself (what every one of them did before those were shared);
* **after one write**: the scope's data version bumped once (as a rating does), then the
  pages in turn: the first builds the shared piece (``leaderboard.scope_runs_data``,
  ``figures.scope_table``), the others reuse it.

Both ways compute every page's own figures afresh; the difference is the shared piece.
"""

from __future__ import annotations

import time
from collections.abc import Callable

VISITS = (
    (
        "leaderboard",
        "leaderboard + paired comparison",
        "leaderboard intervals",
        "chart: label distribution",
    ),
    ("agreement page", "agreement intervals (1000 bootstrap)"),
)


def _one_visit(
    client, urls: dict[str, str], visit: tuple[str, ...], before_each: Callable[[], None]
) -> dict:
    """Wall and CPU seconds of each page of ``visit``, ``before_each()`` called first."""
    out = {}
    for label in visit:
        before_each()
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(urls[label])
        out[label] = (time.perf_counter() - start, time.process_time() - start_cpu)
        assert response.status_code == 200, (urls[label], response.status_code)
    return out


def time_visit(client, urls: dict[str, str], clear: Callable[[], None], repeat: int) -> None:
    """Each of :data:`VISITS` in turn."""
    for visit in VISITS:
        _time_one(client, urls, visit, clear, repeat)


def _time_one(
    client, urls: dict[str, str], visit: tuple[str, ...], clear: Callable[[], None], repeat: int
) -> None:
    """Print, per page and in total, the best of ``repeat`` alternating runs of each way."""
    from annotations.data_versions import EVERY_KIND, data_changed

    bumped = [False]

    def bump_first() -> None:  # one write before the visit's first page
        if not bumped[0]:
            data_changed(kind=EVERY_KIND)
            bumped[0] = True

    best: dict[str, dict[str, tuple[float, float]]] = {"alone": {}, "visit": {}}
    for _ in range(repeat):
        for way, before_each in (("alone", clear), ("visit", bump_first)):
            bumped[0] = False
            for label, (wall, cpu) in _one_visit(client, urls, visit, before_each).items():
                old = best[way].get(label, (float("inf"), float("inf")))
                best[way][label] = (min(old[0], wall), min(old[1], cpu))
    print(f"\n  after a write, these pages in turn (best of {repeat}, alternating)")
    print(f"  {'page':40s} {'alone s':>8s} {'shared s':>8s} {'alone CPU':>9s} {'shared CPU':>10s}")
    for label in (*visit, "total"):
        if label == "total":
            a_wall, a_cpu = (sum(v[i] for v in best["alone"].values()) for i in (0, 1))
            s_wall, s_cpu = (sum(v[i] for v in best["visit"].values()) for i in (0, 1))
        else:
            (a_wall, a_cpu), (s_wall, s_cpu) = best["alone"][label], best["visit"][label]
        print(f"  {label:40s} {a_wall:8.3f} {s_wall:8.3f} {a_cpu:9.3f} {s_cpu:10.3f}", flush=True)
