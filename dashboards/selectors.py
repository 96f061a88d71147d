"""Reads for the dashboards: flat value lists in a fixed number of queries, maths in numpy.

Every function here issues a number of SQL queries that does not depend on the data size;
``tests/dashboards/test_queries.py`` holds them to that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import connections
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from annotations.metrics import RatingTable, _codes
from annotations.models import Rater, Rating, Sample
from predictions.models import ModelRun, Prediction

IS_OPEN = ExpressionWrapper(Q(story__ending=""), output_field=BooleanField())


def flat_array(qs: QuerySet, n_columns: int, dtype=np.int64) -> np.ndarray:
    """One query: a ``values_list`` queryset of numbers as an ``(n, n_columns)`` array.

    The compiled SQL runs on a plain cursor: for a million rows Django's per-row iterator
    costs more than the query itself. On PostgreSQL each column comes back as one array
    (``array_agg``), which the driver decodes in C, instead of a million row tuples.
    NULLs become NaN (use a float ``dtype`` where a column may be NULL)."""
    sql, params = qs.query.get_compiler(using=qs.db).as_sql()
    connection = connections[qs.db]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            names = [f"c{i}" for i in range(n_columns)]
            aggregates = ", ".join(f"array_agg(t.{name})" for name in names)
            cursor.execute(f"SELECT {aggregates} FROM ({sql}) AS t({', '.join(names)})", params)
            columns = cursor.fetchone()
            if not columns or columns[0] is None:
                return np.zeros((0, n_columns), dtype=dtype)
            return np.column_stack([np.array(col, dtype=dtype) for col in columns])
        cursor.execute(sql, params)
        return np.array(cursor.fetchall(), dtype=dtype).reshape(-1, n_columns)


def rating_table(ratings: QuerySet[Rating]) -> RatingTable:
    """One query: ``(sample, rater, score, setup)`` of every rating, as coded arrays."""
    columns = ("sample_id", "rater_id", "score", "sample__story__setup_id")
    arr = flat_array(ratings.order_by().values_list(*columns), len(columns))
    return RatingTable(
        sample=_codes(arr[:, 0]),
        rater=_codes(arr[:, 1]),
        score=arr[:, 2].astype(float),
        setup=_codes(arr[:, 3]),
    )


def groups_are_known(ratings: QuerySet[Rating]) -> bool:
    """Imported raters are import positions, not people: their groups are unknown."""
    return not ratings.filter(rater__kind=Rater.Kind.IMPORTED).exists()


@dataclass
class SampleMeta:
    """Aligned per-sample facts for a set of samples."""

    ids: list[int]
    setup: dict[int, int]
    is_open: dict[int, bool]
    homonym: dict[int, int] = field(default_factory=dict)
    sense: dict[int, int] = field(default_factory=dict)
    story: dict[int, int] = field(default_factory=dict)


def sample_meta(samples: QuerySet[Sample]) -> SampleMeta:
    """One query for the structure of a set of samples (no long texts)."""
    rows = (
        samples.order_by("split_id", "position")
        .annotate(is_open=IS_OPEN)
        .values_list(
            "id", "story__setup_id", "is_open", "story__setup__homonym_id", "sense_id", "story_id"
        )
    )
    meta = SampleMeta(ids=[], setup={}, is_open={})
    for sid, setup, is_open, homonym, sense, story in rows:
        meta.ids.append(sid)
        meta.setup[sid], meta.is_open[sid] = setup, bool(is_open)
        meta.homonym[sid], meta.sense[sid], meta.story[sid] = homonym, sense, story
    return meta


def labels_by_sample(ratings: QuerySet[Rating]) -> dict[int, list[int]]:
    """One query: the human ratings of each sample (order within a sample is not kept:
    the official metrics do not depend on it)."""
    arr = flat_array(ratings.order_by().values_list("sample_id", "score"), 2)
    if not len(arr):
        return {}
    order = np.argsort(arr[:, 0], kind="stable")
    samples, scores = arr[order, 0], arr[order, 1].tolist()
    starts = np.r_[0, np.flatnonzero(np.diff(samples)) + 1]
    bounds = np.r_[starts, len(samples)].tolist()
    return {
        key: scores[bounds[i] : bounds[i + 1]] for i, key in enumerate(samples[starts].tolist())
    }


def finished_runs() -> list[ModelRun]:
    return list(ModelRun.objects.finished().select_related("split__dataset").order_by("id"))


def predictions_by_run(runs: list[ModelRun], samples=None) -> dict[int, dict[int, float]]:
    """One query: ``{run_id: {sample_id: score}}`` for the given runs (and samples)."""
    preds = Prediction.objects.filter(run__in=[r.id for r in runs])
    if samples is not None:
        preds = preds.filter(sample__in=samples)
    out: dict[int, dict[int, float]] = {r.id: {} for r in runs}
    for run_id, sample_id, value in preds.order_by().values_list("run_id", "sample_id", "score"):
        out[run_id][sample_id] = value
    return out
