"""Planner statistics after predictions are written in bulk: an imported file
(predictions/io/importers.py) and a model run's end (predictions/runs/worker.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from ambisite.db import statistics
from predictions.models import ModelRun, Prediction
from predictions.runs.worker import run_finish
from tests.dashboards.helpers import import_run
from tests.predictions.runhelpers import small_split

TABLE = Prediction._meta.db_table


def _estimate() -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [TABLE])
        return cursor.fetchone()[0]


def _never_analysed(monkeypatch) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's (CI runs it there)")
    monkeypatch.setattr(statistics, "BULK_ROWS", 10)  # a small split stands for a big one
    with connection.cursor() as cursor:  # as a never-analysed table has it
        cursor.execute("UPDATE pg_class SET reltuples = -1 WHERE relname = %s", [TABLE])


@pytest.mark.django_db
def test_an_imported_file_of_predictions_is_counted_once_it_commits(
    monkeypatch, django_capture_on_commit_callbacks
):
    split = small_split(setups=3)
    _never_analysed(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        import_run(split, "file run")
    assert Prediction.objects.count() == 18 and _estimate() >= 18


@pytest.mark.django_db
def test_a_finished_model_run_is_counted_and_a_failed_one_is_not(
    monkeypatch, django_capture_on_commit_callbacks
):
    split = small_split(setups=3)
    samples = list(split.samples.all())
    _never_analysed(monkeypatch)

    def run_of(n: int) -> ModelRun:
        run = ModelRun.objects.create(
            name=f"run {n}", backend="constant", split=split, total=18, status="running"
        )
        Prediction.objects.bulk_create(
            Prediction(run=run, sample=s, score=3.0) for s in samples[:n]
        )
        return run

    with django_capture_on_commit_callbacks(execute=True):
        run = run_of(12)
        assert not run_finish(run, worker=run.worker)  # 6 of 18 left: not finished
    assert _estimate() < 0
    with django_capture_on_commit_callbacks(execute=True):
        run = run_of(18)
        assert run_finish(run, worker=run.worker)
    assert _estimate() >= 30
