"""Pages after a write with the background on (part of ``bench/dashboards.py``): per page,
the scope's data version bumped (a write, as a rating does), then

* **request**: the page requested once: a value whose last computation took at least
  ``DASHBOARD_BACKGROUND_AFTER_SECONDS`` (0.3 s unless set) is served from its previous
  version (``stale``), any other computed in the request (``fresh``);
* **refresh**: the refresh task the request enqueued (``dashboards.tasks.refresh_page``),
  run here, inline and after the request, as the Celery worker would run it (the bench has no
  worker: the enqueue is replaced by a list); its wall and CPU time is how long the page
  shows the previous figures at best;
* **next**: the page requested again, answered from the cache with the new version.
"""

from __future__ import annotations

import os
import time


def time_after_write(client, urls: dict[str, str]) -> None:
    from django.test import override_settings

    from annotations.data_versions import EVERY_KIND, data_changed
    from dashboards import background
    from dashboards.tasks import refresh_page

    threshold = float(os.environ.get("DASHBOARD_BACKGROUND_AFTER_SECONDS") or 0.3)
    sent: list[tuple] = []
    enqueue, background.enqueue = background.enqueue, lambda *args: sent.append(args)
    print(
        f"\n  after a write, each page alone, background after {threshold} s "
        "(refresh: the Celery task run inline here, after the request)"
    )
    print(
        f"  {'page':40s} {'served':>6s} {'request s':>9s} {'refresh s':>9s}"
        f" {'refresh CPU':>11s} {'next s':>8s}"
    )
    try:
        for label, url in urls.items():
            client.get(url)  # computed in the request (background off), its time recorded
            data_changed(kind=EVERY_KIND)
            sent.clear()
            with override_settings(DASHBOARD_BACKGROUND_AFTER_SECONDS=threshold):
                request = _timed(client, url)
                served = "stale" if "X-Dashboard-Stale" in request[2] else "fresh"
                start, start_cpu = time.perf_counter(), time.process_time()
                for args in sent:
                    refresh_page(*args)
                refresh = (time.perf_counter() - start, time.process_time() - start_cpu)
                after = _timed(client, url)
            assert "X-Dashboard-Stale" not in after[2], url
            took = f"{refresh[0]:9.3f} {refresh[1]:11.3f}" if sent else f"{'-':>9s} {'-':>11s}"
            print(
                f"  {label:40s} {served:>6s} {request[0]:9.3f} {took} {after[0]:8.3f}",
                flush=True,
            )
    finally:
        background.enqueue = enqueue


def _timed(client, url: str):
    start, start_cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    took = (time.perf_counter() - start, time.process_time() - start_cpu, response)
    assert response.status_code == 200, (url, response.status_code)
    return took
