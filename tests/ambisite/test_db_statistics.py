"""Planner statistics refreshed after bulk writes (ambisite/db/statistics.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from ambisite.db.statistics import BULK_ROWS, analyze_after_commit
from studies.models import Slot
from tests.studies.helpers import open_study


def _estimated_rows(table: str) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_a_small_write_schedules_nothing(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        assert analyze_after_commit(BULK_ROWS - 1, Slot) is False
    assert callbacks == []


@pytest.mark.django_db
def test_opening_a_study_refreshes_the_slot_statistics(django_capture_on_commit_callbacks):
    """A study of 40 setups x 6 samples x 5 ratings opens with 1,200 slots: once the opening
    commits, the planner's estimate of the slot table counts them (never analysed, it
    stands at -1 or at whatever autovacuum saw last)."""
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's (CI runs it there)")
    with connection.cursor() as cursor:  # the estimate as a never-analysed table has it
        cursor.execute("UPDATE pg_class SET reltuples = -1 WHERE relname = 'studies_slot'")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        study = open_study(40, per_participant=30, ratings=5, checks=1)
    slots = Slot.objects.filter(study=study).count()
    assert slots == 1200
    assert len(callbacks) >= 1
    # ANALYZE samples the table (this test's own uncommitted rows included): at least them
    assert _estimated_rows("studies_slot") >= slots
