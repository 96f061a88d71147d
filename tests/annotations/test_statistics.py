"""Planner statistics after an import (annotations/statistics.py): every table it writes."""

from __future__ import annotations

import pytest
from django.db import connection

from ambisite.db import statistics
from annotations.fool import load_fool
from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Rating, SenseCandidate, Setup, Story
from annotations.sensechoice import sense_choice_import
from annotations.statistics import IMPORTED_TABLES
from tests.annotations.test_fool import SAMPLE
from tests.conftest import load_split_json


def _estimates(*models) -> dict[str, float]:
    tables = [m._meta.db_table for m in models]
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)", [tables])
        return dict(cursor.fetchall())


def _never_analysed() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's (CI runs it there)")
    with connection.cursor() as cursor:  # as a never-analysed table has it
        cursor.execute(
            "UPDATE pg_class SET reltuples = -1 WHERE relname = ANY(%s)",
            [[m._meta.db_table for m in IMPORTED_TABLES]],
        )


@pytest.mark.django_db
def test_an_import_refreshes_the_statistics_of_the_texts_it_wrote_too(
    django_capture_on_commit_callbacks,
):
    """The dev split (588 samples, about 3,000 ratings): once the import commits, the
    planner's estimates count the new setups and stories, not only the samples and ratings
    (a never-analysed table stands at -1, or at whatever autovacuum saw last)."""
    _never_analysed()
    with django_capture_on_commit_callbacks(execute=True):
        ambistory_import(samples=parse_ambistory(load_split_json("dev")), split="dev")
    counts = {m._meta.db_table: m.objects.count() for m in (Setup, Story, Rating)}
    assert min(counts.values()) > 0
    # ANALYZE samples the table (this test's own uncommitted rows included): at least them
    estimates = _estimates(Setup, Story, Rating)
    assert all(estimates[table] >= n for table, n in counts.items()), (estimates, counts)


@pytest.mark.django_db
def test_a_sense_choice_import_refreshes_its_candidates_too(
    monkeypatch, django_capture_on_commit_callbacks
):
    """It analysed nothing before; the FOOL sample is small, so the bulk threshold is 1."""
    _never_analysed()
    monkeypatch.setattr(statistics, "BULK_ROWS", 1)
    with django_capture_on_commit_callbacks(execute=True):
        sense_choice_import(data=load_fool(SAMPLE, dataset="fool-stats", title="t"))
    n = SenseCandidate.objects.count()
    assert n > 0 and _estimates(SenseCandidate)["annotations_sensecandidate"] >= n
