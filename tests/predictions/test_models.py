"""predictions.models: the invariants the database holds for model runs and predictions."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from predictions.models import LARGEST_FLOAT, ModelRun, Prediction
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_and_sample():
    split = small_split(setups=1)
    run = ModelRun.objects.create(name="r", backend="constant", split=split, total=6)
    return run, split.samples.order_by("position").first()


@pytest.mark.parametrize("score", [float("nan"), float("inf"), float("-inf")])
def test_the_database_refuses_a_non_finite_prediction(run_and_sample, score):
    run, sample = run_and_sample
    with pytest.raises(IntegrityError), transaction.atomic():
        Prediction.objects.create(run=run, sample=sample, score=score)
    Prediction.objects.create(run=run, sample=sample, score=3.0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Prediction.objects.filter(run=run).update(score=score)
    assert Prediction.objects.get(run=run).score == 3.0


@pytest.mark.parametrize("score", [LARGEST_FLOAT, -LARGEST_FLOAT, 5e-324, 0.0])
def test_every_finite_prediction_is_stored(run_and_sample, score):
    run, sample = run_and_sample
    Prediction.objects.create(run=run, sample=sample, score=score)
    assert Prediction.objects.get(run=run).score == score


def _migrate(target: str) -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    MigrationExecutor(connection).migrate([("predictions", target)])


@pytest.mark.django_db(transaction=True)
def test_the_migration_removes_non_finite_predictions_and_fails_the_runs_that_held_them():
    """An older database may hold a backend's NaN or infinite output (the worker stored it
    as it came until df34007): the constraint's migration removes those rows, keeps the
    finite ones and says so in each run's error, so that a retry predicts them again; the
    dashboards recompute what they cached with those rows."""
    from django.db import connection

    from annotations.data_versions import RUNS, DataVersion

    def runs_version() -> list[tuple[int, int]]:
        return list(DataVersion.objects.filter(kind=RUNS).values_list("n", "stamp"))

    split = small_split(setups=1)
    samples = list(split.samples.order_by("position"))
    _migrate("0005_fit_split_field")  # the database as it was before the constraint
    try:
        bad = [float("inf"), float("-inf")]
        if connection.vendor == "postgresql":  # SQLite stores NaN as NULL: never a score
            bad.append(float("nan"))

        def run(status: str, values: list[float], **fields) -> ModelRun:
            run = ModelRun.objects.create(
                name=status, backend="constant", split=split, total=6, status=status, **fields
            )
            Prediction.objects.bulk_create(
                Prediction(run=run, sample=s, score=v) for s, v in zip(samples, values)
            )
            return run

        held = run("succeeded", [*bad, 3.0, 2.0], done=5, scores={"spearman": 0.5})
        cancelled = run("cancelled", [1.0, float("inf")], error="cancelled by a researcher")
        clean = run("succeeded", [3.0] * 6, done=6, scores={"spearman": 0.1})
        before = runs_version()
    finally:
        _migrate("0006_prediction_score_finite")
    held.refresh_from_db()
    assert (held.status, held.done, held.scores) == ("failed", 2, None)
    assert held.error.startswith(f"{len(bad)} NaN or infinite predictions removed by migration")
    assert held.finished_at is not None
    assert sorted(held.predictions.values_list("score", flat=True)) == [2.0, 3.0]
    cancelled.refresh_from_db()
    assert (cancelled.status, cancelled.done) == ("cancelled", 1)
    assert cancelled.error.startswith("cancelled by a researcher\n1 NaN or infinite prediction ")
    assert runs_version() != before  # no dashboard figure cached with the removed rows
    clean.refresh_from_db()
    assert (clean.status, clean.done, clean.scores, clean.error) == (
        "succeeded", 6, {"spearman": 0.1}, ""
    )  # fmt: skip
