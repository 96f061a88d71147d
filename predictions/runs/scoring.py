"""A model run's scores: the official metrics for plausibility, Spearman for relatedness,
accuracy and macro-F1 per set for sense choice (:mod:`predictions.evaluation_kinds`)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotations.data_versions import RUNS, data_changed
from annotations.models import Rating, Sample, SenseCandidate, TaskKind
from predictions.evaluation import score_lists
from predictions.evaluation_kinds import relatedness_scores, sense_choice_scores
from predictions.models import ModelRun


def run_labels_and_predictions(run: ModelRun) -> tuple[list[list[int]], list[float]]:
    """Aligned (human labels, prediction) lists for the run's rated samples, valid raters only."""
    preds = dict(run.predictions.values_list("sample_id", "score"))
    labels: dict[int, list[int]] = {}
    ratings = (
        Rating.objects.valid()
        .filter(sample_id__in=preds.keys())
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
    kind = run.split.dataset.task_kind
    if kind == TaskKind.SENSE_CHOICE:
        found = _sense_choice(run)
    else:
        labels, preds = run_labels_and_predictions(run)
        found = None
        if labels and kind == TaskKind.RELATEDNESS:
            found = relatedness_scores(preds, [sum(lab) / len(lab) for lab in labels])
        elif labels:
            found = score_lists(labels, preds).as_dict()
    run.scores = {**found, "scored_at": timezone.now().isoformat()} if found else None
    run.save(update_fields=["scores"])
    # the run is on the leaderboards and run lists now (every kind's pages that read runs)
    data_changed(kind=RUNS)
    return run.scores


def _sense_choice(run: ModelRun) -> dict | None:
    """Accuracy and macro-F1 per set against the gold candidates; a prediction is the index
    of the chosen candidate (anything else counts as wrong)."""
    preds = dict(run.predictions.values_list("sample_id", "score"))
    rows = Sample.objects.filter(pk__in=preds).values_list(
        "pk", "item_set", "story__setup__homonym__form"
    )
    gold = dict(
        SenseCandidate.objects.filter(sample_id__in=preds, is_gold=True).values_list(
            "sample_id", "index"
        )
    )
    scored = [(pk, item_set, word) for pk, item_set, word in rows if pk in gold]
    if not scored:
        return None
    return sense_choice_scores(
        [gold[pk] for pk, _, _ in scored],
        [int(round(preds[pk])) for pk, _, _ in scored],
        [word for _, _, word in scored],
        [item_set for _, item_set, _ in scored],
    )
