"""Benchmark: server time of every dashboard page and JSON endpoint.

Phase 1 imports the AmbiStory train+dev data and two prediction files for dev into a scratch
database and times each page (target: under 100 ms). Phase 2 adds a synthetic study of
100,000 samples and 1,000,000 ratings (participants in batches of 30 samples, 10 ratings per
sample, two model runs) and times each page again (target: under 1 s). Times are measured
in-process with Django's test client (view, queries and template; no network), each page
*cold* (the dashboards' cache emptied before the request: figures computed, as after a
write) and *warm* (answered from the cache, with its query count): best of 3 each for
train+dev, one request each at the large size, after importing scipy and krippendorff as a
running server already has. Each phase also prints a fixed Python loop's time as a
reference and every page's time divided by it, so runs on a busy machine can be compared.
Then, per page, the request after a write with the background on: served from the previous
version when its figures were slow, the refresh task run inline after it
(``bench/dashboards_stale.py``); and the first visit after an import with the default pages
precomputed, the precompute task run inline before it (``bench/dashboards_precompute.py``).

The bulk inserts take their column lists from the models: a column the bench does not give
gets the model's default, and one without a default stops the bench naming it.

The scratch database is ``<name>_bench`` next to DATABASE_URL when it points to PostgreSQL
(bulk-loaded with COPY), else a scratch SQLite file under var/. It is dropped at the end.

    python bench/dashboards.py [--samples 100000] [--per-sample 10] [--keep] [--reuse]
    python bench/dashboards.py --smoke   # CI: 40 + 40 AmbiStory samples, 120 synthetic x 3

``--keep`` leaves the scratch database in place; ``--reuse`` times the pages again on a
kept one (no import, no synthetic study built), e.g. after a change to the code.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from dashboards_data import build_study  # noqa: E402  (bench/ is on the path)
from dashboards_precompute import time_precomputed  # noqa: E402
from dashboards_stale import time_after_write  # noqa: E402
from dashboards_visit import time_visit  # noqa: E402
from scratch import scratch_dir, setup_django  # noqa: E402

SMALL_TARGET, LARGE_TARGET = 0.100, 1.0  # issue 33 (issue 5: 0.3 s and 3 s)


def scratch_database(fresh: bool = True, label: str = "") -> tuple[str, str]:
    """``(kind, url)`` of the scratch database, created afresh here unless ``fresh`` is off.
    ``label`` names a separate one (the smoke run's, beside a kept full-size one)."""
    url = os.environ.get("DATABASE_URL", "")
    suffix = f"_bench{'_' + label if label else ''}"
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        parts = urlparse(url)
        name = parts.path.lstrip("/") + suffix
        admin = urlunparse(parts._replace(path="/postgres"))
        if fresh:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
                conn.execute(f'CREATE DATABASE "{name}"')
        return "postgresql", urlunparse(parts._replace(path=f"/{name}"))
    path = scratch_dir() / f"bench-dashboards{suffix}.sqlite3"
    for end in ("", "-wal", "-shm"):
        if fresh:
            Path(f"{path}{end}").unlink(missing_ok=True)
    return "sqlite", f"sqlite:///{path}"


def drop_database(kind: str, url: str) -> None:
    from django.db import connections

    connections.close_all()
    if kind == "postgresql":
        import psycopg

        parts = urlparse(url)
        admin = urlunparse(parts._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}"')
    else:
        Path(urlparse(url).path).unlink(missing_ok=True)


# DEBUG=0 would link the hashed copies of `collectstatic`; the pages' server time is the same
# with the plain names, so the bench needs no collected static files
DJANGO_ENV = {"SECRET_KEY": "bench-only-secret", "STATIC_MANIFEST": "0"}
warnings.filterwarnings("ignore", message="No directory at")  # whitenoise: no STATIC_ROOT


def load_ambistory(limit: int | None = None) -> None:
    """train+dev and two dev prediction files; ``limit``: only the first samples of each."""
    import json

    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split
    from predictions.io.importers import predictions_import

    for split in ("train", "dev"):
        with open(ROOT / "data" / "ambistory" / f"{split}.json", encoding="utf-8") as handle:
            data = json.load(handle)
        if limit is not None:
            data = dict(list(data.items())[:limit])
        ambistory_import(samples=parse_ambistory(data), split=split)
    dev = Split.objects.get(name="dev")
    kept = set(dev.samples.values_list("dataset_id", flat=True))
    vectors = ROOT / "tests" / "vectors" / "scoring-conformance"
    for name in ("pred_random.jsonl", "pred_boundary.jsonl"):
        with open(vectors / name, encoding="utf-8") as handle:
            lines = [line for line in handle if json.loads(line)["id"] in kept]
        predictions_import(split=dev, name=name, lines=lines)


def pages(client) -> dict[str, str]:
    from annotations.models import Setup
    from predictions.models import ModelRun

    setup = Setup.objects.order_by("-id").values_list("id", flat=True).first()
    run, other = ModelRun.objects.finished().order_by("-id").values_list("id", flat=True)[:2]
    return {
        "agreement page": "/dashboards/",
        "agreement intervals (1000 bootstrap)": "/dashboards/agreement.json",
        "item explorer (by SD)": "/dashboards/items/?sort=sd",
        "item explorer (by run error)": f"/dashboards/items/?sort=error&run={run}",
        "setup view": f"/dashboards/setups/{setup}/",
        "leaderboard": "/dashboards/leaderboard/",
        "leaderboard + paired comparison": f"/dashboards/leaderboard/?a={run}&b={other}",
        "leaderboard intervals": "/dashboards/leaderboard/intervals.json",
        "ending effects": "/dashboards/endings/",
        "annotator quality": "/dashboards/annotators/",
        "chart: rating histogram": "/dashboards/charts/rating-histogram.json",
        "chart: homonym SD": "/dashboards/charts/homonym-sd.json",
        "chart: model vs human": f"/dashboards/charts/model-vs-human.json?run={run}",
        "chart: label distribution": "/dashboards/charts/label-distribution.json",
        "chart: setup histograms": f"/dashboards/charts/setup-histograms.json?setup={setup}",
    }


def warm_up() -> None:
    """A running server has imported these already; the first request should not pay."""
    import krippendorff  # noqa: F401
    import scipy.stats  # noqa: F401


def warm_templates() -> None:
    """Every page once on a filter that matches no sample: imports and templates are then
    loaded, as after phase 1 of a full run."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username="bench", is_staff=True)
    client = Client()
    client.force_login(user)
    for url in pages(client).values():
        client.get(f"{url}{'&' if '?' in url else '?'}homonym=no-such-homonym")


def reference_seconds() -> float:
    """Best of 3 of a fixed pure-Python loop, timed beside the pages: on a shared machine a
    page's time divided by this compares runs under different loads."""
    took = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        sum(i * i for i in range(1_000_000))
        took = min(took, time.perf_counter() - start)
    return took


@dataclass
class Timing:
    """One page's best wall and CPU seconds (the bench process's: Django and numpy;
    PostgreSQL's own time excluded) and the queries of its last request."""

    wall: float = float("inf")
    cpu: float = float("inf")
    queries: int = 0


def time_request(client, url: str, best: Timing) -> Timing:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    assert response.status_code == 200, (url, response.status_code)
    return Timing(min(best.wall, wall), min(best.cpu, cpu), len(queries))


def time_pages(title: str, target: float, repeat: int) -> list[tuple[str, Timing, Timing]]:
    """Per page, best of ``repeat`` server times *cold* (the dashboards' cache emptied before
    each request: the figures computed, as after a write) and then *warm* (answered from the
    cache), with the warm request's query count. The first cold request also warms
    PostgreSQL's own cache."""
    from django.contrib.auth import get_user_model
    from django.core.cache import caches
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username="bench", is_staff=True)
    client = Client()
    client.force_login(user)
    reference = reference_seconds()
    print(f"\n{title} (target {target * 1000:.0f} ms per page)")
    print(f"  reference (fixed Python loop, best of 3): {reference:.3f} s")
    print(
        f"  {'page':40s} {'cold s':>8s} {'warm s':>8s} {'ratio':>6s} {'cold CPU':>8s}"
        f" {'warm CPU':>8s} {'queries':>7s} {'/ref':>6s}"
    )
    results = []
    for label, url in pages(client).items():
        cold, warm = Timing(), Timing()
        for _ in range(repeat):
            caches[settings_alias()].clear()
            cold = time_request(client, url, cold)
        for _ in range(repeat):
            warm = time_request(client, url, warm)
        results.append((label, cold, warm))
        flag = "" if warm.wall <= target else "  warm over target"
        flag += "" if cold.wall <= target else "  (cold over)"
        print(
            f"  {label:40s} {cold.wall:8.3f} {warm.wall:8.3f} {warm.wall / target:6.2f}"
            f" {cold.cpu:8.3f} {warm.cpu:8.3f} {warm.queries:7d} {warm.wall / reference:6.1f}"
            f"{flag}",
            flush=True,
        )
    time_visit(client, pages(client), caches[settings_alias()].clear, max(repeat, 3))
    time_after_write(client, pages(client))
    time_precomputed(client, pages(client), caches[settings_alias()].clear)
    return results


def settings_alias() -> str:
    from django.conf import settings

    return settings.DASHBOARD_CACHE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--per-sample", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument(
        "--reuse", action="store_true", help="time the pages of a kept scratch database again"
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: 40 samples of train and of dev, a synthetic study of 120 samples x 3",
    )
    args = parser.parse_args()
    if args.smoke:
        args.samples, args.per_sample = 120, 3
    kind, url = scratch_database(fresh=not args.reuse, label="smoke" if args.smoke else "")
    print(f"scratch database: {kind} {urlparse(url).path}")
    if args.reuse:
        reuse(kind, url)
        return
    try:
        setup_django(url, **DJANGO_ENV)
        start = time.perf_counter()
        load_ambistory(limit=40 if args.smoke else None)
        print(f"imported AmbiStory train+dev and 2 dev runs in {time.perf_counter() - start:.1f} s")
        warm_up()
        time_pages("AmbiStory train+dev", SMALL_TARGET, repeat=1 if args.smoke else 3)
        start = time.perf_counter()
        counts = build_study(kind, n_samples=args.samples, per_sample=args.per_sample)
        print(
            f"\nbuilt a synthetic study: {counts['samples']:,} samples, {counts['ratings']:,} "
            f"ratings, {counts['raters']:,} participants, {counts['predictions']:,} predictions "
            f"in {time.perf_counter() - start:.1f} s"
        )
        time_pages(f"synthetic study + train+dev ({kind})", LARGE_TARGET, repeat=1)
    finally:
        if not args.keep:
            drop_database(kind, url)


def reuse(kind: str, url: str) -> None:
    setup_django(url, **DJANGO_ENV)
    from annotations.models import Rating

    warm_up()
    warm_templates()
    small = Rating.objects.count() < 100_000  # train+dev only
    target = SMALL_TARGET if small else LARGE_TARGET
    time_pages(f"kept scratch database ({kind})", target, repeat=3 if small else 1)


if __name__ == "__main__":
    main()
