"""Small hand-made data for the dashboard tests."""

from __future__ import annotations

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Rater, Rating, Sample, Split
from predictions.io.importers import predictions_import
from tests.factories import ambistory_setup

DASHBOARD_URLS = [
    "/dashboards/",
    "/dashboards/agreement.json",
    "/dashboards/items/",
    "/dashboards/leaderboard/",
    "/dashboards/leaderboard/intervals.json",
    "/dashboards/endings/",
    "/dashboards/annotators/",
    "/dashboards/charts/rating-histogram.json",
    "/dashboards/charts/homonym-sd.json",
    "/dashboards/charts/model-vs-human.json",
    "/dashboards/charts/label-distribution.json",
    "/dashboards/charts/setup-histograms.json",
]


def import_setups(n_setups: int, split: str = "mini", prefix: str = "word") -> Split:
    """``n_setups`` whole setups (6 samples each, 5 imported ratings per sample)."""
    data = {}
    for k in range(n_setups):
        data.update(ambistory_setup(6 * k, homonym=f"{prefix}{k}"))
    ambistory_import(samples=parse_ambistory(data), split=split)
    return Split.objects.get(name=split)


def import_run(split: Split, name: str, value=lambda i: 1 + i % 5):
    ids = split.samples.order_by("position").values_list("dataset_id", flat=True)
    lines = [f'{{"id": "{sid}", "prediction": {value(int(sid))}}}\n' for sid in ids]
    return predictions_import(split=split, name=name, lines=lines)


def study_ratings(split: Split, scores_by_rater: dict[str, list[int]]) -> list[Rater]:
    """Participant raters who rated the split's samples in order (one group)."""
    samples = list(Sample.objects.filter(split=split).order_by("position"))
    raters = []
    for name, scores in scores_by_rater.items():
        rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=name)
        Rating.objects.bulk_create(
            [Rating(sample=s, rater=rater, score=v) for s, v in zip(samples, scores)]
        )
        raters.append(rater)
    return raters
