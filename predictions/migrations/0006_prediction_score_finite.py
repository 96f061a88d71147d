"""A stored prediction's score is a finite number: a CHECK constraint,
``prediction_score_finite``, refuses NaN, +inf and -inf.

A database from before the worker refused a backend's non-finite output may hold such rows.
They are removed first, and every run that held any is marked failed (a cancelled one stays
cancelled) with a reason naming how many, its finite predictions kept and its scores
cleared, since they were computed with the removed rows: a retry predicts those samples
again (the worker now refuses a non-finite output, naming the sample). The runs' data
version is bumped, so that no dashboard serves a figure cached with them. Reversed, the
constraint goes; the removed rows do not come back.
"""

import random
import sys

from django.db import migrations, models
from django.db.models import Count, F, Q
from django.utils import timezone

# As ``predictions.models`` has them (copied: a migration keeps its own).
LARGEST_FLOAT = sys.float_info.max
FINITE = Q(score__gte=-LARGEST_FLOAT, score__lte=LARGEST_FLOAT)
KEEP_STATUS = ("failed", "cancelled")
RUNS = "~runs"  # annotations.data_versions.RUNS: the data version of the model runs


def reason(count: int) -> str:
    return (
        f"{count} NaN or infinite prediction{'s' if count != 1 else ''} removed by migration "
        "predictions 0006 (the database now refuses non-finite scores): retry the run to "
        "predict the samples again (an imported or derived run: import or derive it again)"
    )


def non_finite_removed(apps, schema_editor):
    """Remove the non-finite predictions and fail the runs that held them, saying why."""
    Prediction = apps.get_model("predictions", "Prediction")
    ModelRun = apps.get_model("predictions", "ModelRun")
    bad = Prediction.objects.exclude(FINITE)
    counts = dict(
        bad.order_by().values("run_id").annotate(n=Count("pk")).values_list("run_id", "n")
    )
    if not counts:
        return
    bad.delete()
    now = timezone.now()
    for run in ModelRun.objects.filter(pk__in=counts).order_by("pk"):
        error = "\n".join(filter(None, [run.error, reason(counts[run.pk])]))
        ModelRun.objects.filter(pk=run.pk).update(
            status=run.status if run.status in KEEP_STATUS else "failed",
            error=error[-4000:],
            done=Prediction.objects.filter(run_id=run.pk).count(),
            scores=None,
            finished_at=run.finished_at or now,
        )
    DataVersion = apps.get_model("annotations", "DataVersion")
    row, _ = DataVersion.objects.get_or_create(kind=RUNS, split_id=0, shard=0)
    DataVersion.objects.filter(pk=row.pk).update(n=F("n") + 1, stamp=random.getrandbits(31))


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0008_data_versions"),
        ("predictions", "0005_fit_split_field"),
    ]

    operations = [
        migrations.RunPython(non_finite_removed, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="prediction",
            constraint=models.CheckConstraint(condition=FINITE, name="prediction_score_finite"),
        ),
    ]
