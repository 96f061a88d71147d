"""A model run's official scores against the current human ratings."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotations.models import Rater, Rating

from .evaluation import score_lists
from .models import ModelRun


def run_labels_and_predictions(run: ModelRun) -> tuple[list[list[int]], list[float]]:
    """Aligned (human labels, prediction) lists for the run's rated samples, valid raters only."""
    preds = dict(run.predictions.values_list("sample_id", "score"))
    labels: dict[int, list[int]] = {}
    ratings = (
        Rating.objects.filter(sample_id__in=preds.keys())
        .exclude(rater__in=Rater.objects.excluded())
        .order_by("sample_id", "position", "id")
        .values_list("sample_id", "score")
    )
    for sample_id, value in ratings:
        labels.setdefault(sample_id, []).append(value)
    keys = [key for key in preds if labels.get(key)]
    return [labels[k] for k in keys], [preds[k] for k in keys]


@transaction.atomic
def run_score(*, run: ModelRun) -> dict | None:
    """Score a run with the official metrics against the current human ratings.

    Samples without ratings (e.g. a redacted test file) are left out; a run with no rated
    sample gets no score.
    """
    labels, preds = run_labels_and_predictions(run)
    if not labels:
        run.scores = None
    else:
        result = score_lists(labels, preds)
        run.scores = {**result.as_dict(), "scored_at": timezone.now().isoformat()}
    run.save(update_fields=["scores"])
    return run.scores
