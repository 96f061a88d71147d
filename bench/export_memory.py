"""Benchmark: exporting 1,000,000 ratings as jsonl keeps the process under 200 MB.

Creates a scratch database (PostgreSQL ``<name>_bench_export`` when DATABASE_URL points to
PostgreSQL, else a scratch SQLite file under var/), fills it with N ratings (10,000 samples
x 100 raters, inserted by one INSERT ... SELECT), then exports every rating as jsonl

1. through the streaming generator (``annotations.rating_exports.iter_ratings_jsonl``), and
2. through the HTTP streaming view (``/api/v1/exports/ratings.jsonl``, Django test client,
   researcher token),

counting lines and bytes without keeping them, and prints the peak RSS of the process
(``VmHWM`` of /proc/self/status, else ``resource.getrusage``) before and after each export
against the 200 MB target.

    python bench/export_memory.py [--ratings 1000000] [--keep]
    python bench/export_memory.py --smoke   # CI: 2,000 ratings, the same two exports
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from scratch import drop_scratch, scratch_database_url, setup_django  # noqa: E402  (bench/ is on the path)

TARGET_MB = 200
RATERS = 100


def peak_rss_mb() -> float:
    """This process's peak resident set size. Linux keeps ``ru_maxrss`` across ``execve``, so
    a bench started from a large process (a test worker that loaded torch) would report the
    parent's peak; ``VmHWM`` belongs to the new address space and starts afresh at exec."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def fill(n_ratings: int) -> None:
    """N ratings: N/100 samples (one story each) x 100 raters, scores 1-5."""
    from django.db import connection
    from django.utils import timezone

    from annotations.models import (
        Dataset,
        Homonym,
        Rater,
        Rating,
        Sample,
        Sense,
        Setup,
        Split,
        Story,
    )

    n_samples = n_ratings // RATERS
    split = Split.objects.create(dataset=Dataset.objects.create(name="bench"), name="big")
    homonym = Homonym.objects.create(form="bank")
    sense = Sense.objects.create(homonym=homonym, gloss="a financial institution")
    setup = Setup.objects.create(homonym=homonym, precontext="Tom needed cash.", sentence="Bank.")
    stories = Story.objects.bulk_create(
        [Story(setup=setup, ending=f"ending {i}") for i in range(n_samples)], batch_size=5000
    )
    if stories[0].pk is None:  # backends that do not return ids from bulk inserts
        stories = list(Story.objects.order_by("id"))
    Sample.objects.bulk_create(
        [
            Sample(split=split, story=story, sense=sense, dataset_id=str(i), position=i)
            for i, story in enumerate(stories)
        ],
        batch_size=5000,
    )
    Rater.objects.bulk_create(
        [Rater(kind="imported", pseudonym=f"bench:rater-{k}") for k in range(RATERS)]
    )
    first_rater = Rater.objects.order_by("id").values_list("id", flat=True).first()
    now = timezone.now()
    table, samples, raters = (m._meta.db_table for m in (Rating, Sample, Rater))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (sample_id, rater_id, score, nonsensical, comment, position,"
            " created_at, updated_at)"
            f" SELECT s.id, r.id, 1 + ((s.id + r.id) %% 5), %s, '', r.id - %s, %s, %s"
            f" FROM {samples} s CROSS JOIN {raters} r",
            [False, first_rater, now, now],
        )


def count(chunks) -> tuple[int, int]:
    lines = size = 0
    for chunk in chunks:
        if isinstance(chunk, bytes):
            chunk = chunk.decode()
        lines += chunk.count("\n")
        size += len(chunk)
    return lines, size


def export_with_generator() -> tuple[int, int]:
    from annotations.rating_exports import iter_ratings_jsonl, ratings_for_export

    return count(iter_ratings_jsonl(ratings_for_export()))


def export_over_http() -> tuple[int, int]:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user("bench", is_staff=True)
    token = Token.objects.create(user=user)
    response = Client().get(
        "/api/v1/exports/ratings.jsonl", HTTP_AUTHORIZATION=f"Token {token.key}"
    )
    assert response.status_code == 200 and response.streaming, response.status_code
    return count(response.streaming_content)


def measure(label: str, export, expected: int) -> float:
    started = time.perf_counter()
    lines, size = export()
    elapsed = time.perf_counter() - started
    assert lines == expected, f"{label}: {lines} lines, expected {expected}"
    peak = peak_rss_mb()
    print(
        f"{label:<28} {lines:>9,} lines  {size / 1e6:7.1f} MB out  {elapsed:6.1f} s"
        f"  peak RSS {peak:6.1f} MB  (target < {TARGET_MB} MB)"
    )
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--smoke", action="store_true", help="CI size: 2,000 ratings")
    args = parser.parse_args()
    if args.smoke:
        args.ratings = 2_000
    url = scratch_database_url("export")
    setup_django(url, DEBUG="1")
    from django.db import connection

    started = time.perf_counter()
    fill(args.ratings)
    n = args.ratings // RATERS * RATERS
    print(f"database: {connection.vendor} (scratch: {connection.settings_dict['NAME']})")
    print(f"created {n:,} ratings in {time.perf_counter() - started:.1f} s")
    print(f"{'before export':<28} peak RSS {peak_rss_mb():6.1f} MB")
    peaks = [
        measure("generator (jsonl)", export_with_generator, n),
        measure("HTTP streaming view (jsonl)", export_over_http, n),
    ]
    ok = max(peaks) < TARGET_MB
    print(f"peak RSS {max(peaks):.1f} MB: {'under' if ok else 'OVER'} the {TARGET_MB} MB target")
    if not args.keep:
        drop_scratch(url)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
