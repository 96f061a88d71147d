"""Reads for the dashboards: flat value lists in a fixed number of queries, maths in numpy.

Every function here issues a number of SQL queries that does not depend on the data size;
``tests/dashboards/test_queries.py`` holds them to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from django.db.models import (
    Case,
    Count,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)

from ambisite.arrays import flat_array
from annotations.metrics import RatingTable, compact, dot
from annotations.models import GRADED_KINDS, Rater, Rating, Sample, decided_ratings, score_range
from predictions.models import ModelRun, Prediction
from studies.models import ListSlot
from studies.scope import list_name

OPEN_FLAG = Case(
    When(story__ending="", then=Value(1)), default=Value(0), output_field=IntegerField()
)
# Every graded kind's scores (plausibility 1-5, relatedness 0-4): a kind's unused values
# count 0, so one set of columns serves every kind without dropping a score.
_RANGES = [score_range(kind) for kind in GRADED_KINDS]
SCALE = np.arange(min(r[0] for r in _RANGES), max(r[1] for r in _RANGES) + 1, dtype=float)


def scale_ratings(ratings: QuerySet[Rating]) -> QuerySet[Rating]:
    """The ratings that are points on their kind's scale: "cannot decide" (0 of a use pair)
    is counted on the pages but never enters a mean, SD, agreement or model comparison.
    Every statistics read here goes through this."""
    return ratings.filter(decided_ratings())


def rating_table(
    ratings: QuerySet[Rating], samples: QuerySet[Sample], lists: dict[int, int] | None = None
) -> RatingTable:
    """Two queries: ``(sample, rater, score)`` of every rating and the setup of every sample
    (``samples`` must hold the rated ones), as coded arrays. Joined in numpy: a join in
    SQL costs more than the rows it adds. With ``lists`` (rater id -> list id, from
    :func:`rater_lists`) covering every rater, each rating's group is its rater's list."""
    arr = flat_array(
        scale_ratings(ratings).order_by().values_list("sample_id", "rater_id", "score"), 3
    )
    setups = flat_array(samples.order_by("id").values_list("id", "story__setup_id"), 2)
    setup_of = setups[np.searchsorted(setups[:, 0], arr[:, 0]), 1] if len(arr) else arr[:, 0]
    group = None
    if lists and len(arr) and all(r in lists for r in np.unique(arr[:, 1]).tolist()):
        group = codes(np.array([lists[r] for r in arr[:, 1].tolist()], np.int64))
    return RatingTable(
        sample=codes(arr[:, 0]),
        rater=codes(arr[:, 1]),
        score=arr[:, 2].astype(float),
        setup=codes(setup_of),
        group=group,
    )


def rater_lists(ratings: QuerySet[Rating]) -> tuple[dict[int, int], dict[int, str]]:
    """One query: the list of each rater of ``ratings`` who took a place in a list-design
    study (``studies.lists``), and each such list's name ("study-slug list 3")."""
    rows = (
        ListSlot.objects.filter(participant__rater_id__in=ratings.order_by().values("rater_id"))
        .annotate(name=list_name())
        .values_list("participant__rater_id", "list_id", "name")
    )
    of_rater, names = {}, {}
    for rater_id, list_id, name in rows:
        of_rater[rater_id] = list_id
        names[list_id] = name
    return of_rater, names


def codes(values: np.ndarray) -> np.ndarray:
    """Dense codes ``0..k-1`` of positive integer ids, in id order."""
    if not len(values):
        return np.zeros(0, np.int64)
    return compact(values - values.min())[1].astype(np.int64)


def groups_are_known(ratings: QuerySet[Rating]) -> bool:
    """Imported raters are import positions, not people: their groups are unknown."""
    return not ratings.filter(rater__kind=Rater.Kind.IMPORTED).exists()


def sample_counts(ratings: QuerySet[Rating]) -> tuple[np.ndarray, np.ndarray]:
    """One query, aggregated in SQL: the rated samples' ids (ascending) and per sample how
    many of its ratings have each score (``counts[:, k]`` for ``SCALE[k]``). These counts
    are all that the official metrics and every per-sample figure need."""
    names = [f"n{int(v)}" for v in SCALE]
    per_score = {name: Count("id", filter=Q(score=int(v))) for name, v in zip(names, SCALE)}
    qs = scale_ratings(ratings).order_by().values("sample_id").annotate(**per_score)
    arr = flat_array(qs.values_list("sample_id", *names), 1 + len(names))
    arr = arr[np.argsort(arr[:, 0], kind="stable")]
    return arr[:, 0], arr[:, 1:]


@dataclass(frozen=True)
class SampleFrame:
    """Aligned per-sample facts for a set of samples, in dataset order."""

    id: np.ndarray
    setup: np.ndarray
    is_open: np.ndarray


def sample_frame(samples: QuerySet[Sample]) -> SampleFrame:
    """One query for the structure of a set of samples (no texts)."""
    qs = samples.order_by("split_id", "position").annotate(open=OPEN_FLAG)
    arr = flat_array(qs.values_list("id", "story__setup_id", "open"), 3)
    return SampleFrame(arr[:, 0], arr[:, 1], arr[:, 2].astype(bool))


@dataclass(frozen=True)
class SampleStats:
    """Per sample of a set, in dataset order: the asked-for columns and the counts of each
    score among its ratings (every rater's; valid ones unless excluded are included)."""

    columns: dict[str, np.ndarray]
    counts: np.ndarray  # (samples x SCALE)

    @cached_property
    def n(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @cached_property
    def mean(self) -> np.ndarray:
        """``sum / count`` (NaN without ratings): exact, rounded once, as SQL's AVG."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, dot(self.counts, SCALE) / self.n, np.nan)

    @cached_property
    def variance(self) -> np.ndarray:
        """Sample variance (NaN below two ratings) as one division of exact integers, so
        that equal variances are equal floats (ties sort as in SQL)."""
        n, total, squares = self.n, dot(self.counts, SCALE), dot(self.counts, SCALE**2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 1, (n * squares - total * total) / (n * (n - 1)), np.nan)

    @property
    def sd(self) -> np.ndarray:
        return np.sqrt(self.variance)


def sample_stats(
    samples: QuerySet[Sample], *, ratings: QuerySet[Rating], columns=("id",)
) -> SampleStats:
    """Two queries: the samples' ``columns`` (``id`` first; ``open`` is 1 for an open-ended
    story) and per-sample score counts of ``ratings`` (the scope's: they must hold only
    ratings of ``samples``, or of samples the frame ignores)."""
    rated, counts = sample_counts(ratings)
    query = samples.order_by("split_id", "position").annotate(open=OPEN_FLAG)
    frame = flat_array(query.values_list(*columns), len(columns))
    aligned = np.zeros((len(frame), len(SCALE)), np.int64)
    if len(rated):
        row, found = lookup(rated, frame[:, 0])
        aligned[found] = counts[row[found]]
    return SampleStats({name: frame[:, k] for k, name in enumerate(columns)}, aligned)


def lookup(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(index, found)``: where each wanted value sits in the ascending ``keys``."""
    index = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    found = keys[index] == wanted if len(keys) else np.zeros(len(wanted), bool)
    return index, found


def labels_by_sample(ratings: QuerySet[Rating]) -> dict[int, list[int]]:
    """One query: the human ratings of each sample (order within a sample is not kept:
    the official metrics do not depend on it)."""
    arr = flat_array(scale_ratings(ratings).order_by().values_list("sample_id", "score"), 2)
    if not len(arr):
        return {}
    order = np.argsort(arr[:, 0], kind="stable")
    samples, scores = arr[order, 0], arr[order, 1].tolist()
    starts = np.r_[0, np.flatnonzero(np.diff(samples)) + 1]
    bounds = np.r_[starts, len(samples)].tolist()
    return {
        key: scores[bounds[i] : bounds[i + 1]] for i, key in enumerate(samples[starts].tolist())
    }


def finished_runs(kind: str = "plausibility") -> list[ModelRun]:
    """Finished runs over samples of one task kind (the official leaderboard: plausibility;
    relatedness and sense choice have their own page)."""
    runs = ModelRun.objects.finished().filter(split__dataset__task_kind=kind)
    return list(runs.select_related("split__dataset").order_by("id"))


def predictions_by_run(runs: list[ModelRun], samples=None) -> dict[int, dict[int, float]]:
    """One query: ``{run_id: {sample_id: score}}`` for the given runs (and samples)."""
    preds = Prediction.objects.filter(run__in=[r.id for r in runs])
    if samples is not None:
        preds = preds.filter(sample__in=samples)
    out: dict[int, dict[int, float]] = {r.id: {} for r in runs}
    for run_id, sample_id, value in preds.order_by().values_list("run_id", "sample_id", "score"):
        out[run_id][sample_id] = value
    return out
