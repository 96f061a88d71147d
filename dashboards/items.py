"""The item explorer and the setup view: samples with ratings, stats and every run."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

import numpy as np
from django.core.paginator import Page, Paginator

from ambisite.arrays import flat_array
from annotations.kinds import is_decided
from annotations.models import Rating, RatingQuerySet, Sample, Setup, TaskKind
from annotations.official import is_within_sd
from annotations.scope import RatingScope
from predictions.models import ModelRun, Prediction

from .cache import cached
from .forms import SampleFilterForm
from .selectors import (
    SampleStats,
    finished_runs,
    lookup,
    predictions_by_run,
    sample_stats,
)

PER_PAGE = 50
STAT_SORTS = ("sd", "sd_asc", "mean")  # else dataset order


@dataclass
class Cell:
    """One run's prediction for one sample: inside or outside the accepted band."""

    run: ModelRun
    score: float | None
    inside: bool | None


@dataclass
class ItemRow:
    sample: Sample
    ratings: list[Rating]
    cells: list[Cell]

    @property
    def labels(self) -> list[int]:
        return decided_scores(self.ratings)


def _stats(form: SampleFilterForm) -> SampleStats:
    return sample_stats(form.samples(), ratings=form.ratings())


def _stat_order(form: SampleFilterForm, sort: str) -> list[int]:
    """Sample ids by SD or mean (missing last), ties in dataset order, from per-sample score
    counts: the same order as sorting ``with_stats`` in SQL, without aggregating there."""
    stats = _stats(form)
    key = {"sd": -stats.variance, "sd_asc": stats.variance, "mean": -stats.mean}[sort]
    return stats.columns["id"][np.argsort(key, kind="stable")].tolist()


def _error_order(form: SampleFilterForm, run: ModelRun) -> list[int]:
    """Sample ids by the run's error relative to the SD, largest first: |prediction - mean|
    / max(SD, 1), i.e. in units of the accepted band's half-width (above 1: outside)."""
    stats = _stats(form)
    query = Prediction.objects.filter(run=run, sample__in=form.samples()).order_by()
    preds = flat_array(query.values_list("sample_id", "score"), 2, dtype=float)
    preds = preds[np.argsort(preds[:, 0], kind="stable")]
    ids = stats.columns["id"]
    row, found = lookup(preds[:, 0].astype(np.int64), ids)
    keep = found & (stats.n > 0)
    if not keep.any():
        return []
    sd = np.nan_to_num(stats.sd[keep])
    error = np.abs(preds[row[keep], 1] - stats.mean[keep]) / np.maximum(sd, 1.0)
    return ids[keep][np.lexsort((ids[keep], -error))].tolist()


def _order(form: SampleFilterForm, sort: str, error_run: ModelRun | None) -> list[int]:
    """Every sample id of the filter in the page's order (``sort``: a statistic, the run's
    error, else dataset order)."""
    if sort == "error" and error_run is not None:
        return _error_order(form, error_run)
    if sort in STAT_SORTS:
        return _stat_order(form, sort)
    return list(form.samples().order_by("split_id", "position").values_list("id", flat=True))


def explorer_page(
    form: SampleFilterForm, *, sort: str, page: str | None, error_run: ModelRun | None
) -> tuple[Page, list[ItemRow], list[ModelRun]]:
    """A page of samples, then the page's ratings (in the page's scope, which also give
    each sample's stats) and predictions: a fixed number of queries, whatever the number of
    samples. Orders by a statistic are found in numpy from per-sample score counts. The
    order and each page's rows are cached (``dashboards.cache``)."""
    run_id = error_run.pk if sort == "error" and error_run is not None else None
    sort_key = sort if sort in STAT_SORTS or run_id else ""
    order = cached(
        "items-order", form, lambda: _order(form, sort, error_run), sort=sort_key, run=run_id
    )
    page_obj = Paginator(order, PER_PAGE).get_page(page)
    ids = list(page_obj.object_list)
    rows, runs = cached(
        "items-rows",
        form,
        lambda: _page_rows(form, ids, error_run if run_id else None),
        sort=sort_key,
        run=run_id,
        page=page_obj.number,
    )
    return page_obj, rows, runs


def _page_rows(
    form: SampleFilterForm, ids: list[int], error_run: ModelRun | None
) -> tuple[list[ItemRow], list[ModelRun]]:
    """The rows of one page (samples ``ids``, in that order), with each sample's error
    relative to the SD (``rel_error``) when ordered by ``error_run``'s error."""
    by_id = {s.id: s for s in form.samples().with_related().filter(id__in=ids)}
    samples = [by_id[i] for i in ids if i in by_id]
    rows, runs = rows_for(samples, ratings=form.ratings())
    if error_run is not None:
        preds = dict(
            Prediction.objects.filter(run=error_run, sample__in=samples).values_list(
                "sample_id", "score"
            )
        )
        for sample in samples:
            sd = max(sample.sd or 0.0, 1.0)
            sample.rel_error = abs(preds[sample.id] - sample.mean) / sd
    return rows, runs


def decided_scores(ratings: list[Rating]) -> list[int]:
    """The scores that enter a sample's mean and SD ("cannot decide" is shown, not counted)."""
    return [r.score for r in ratings if is_decided(r.kind, r.score)]


def _attach_stats(sample: Sample, ratings: list[Rating]) -> None:
    """``n_ratings``, ``mean``, ``sd`` (sample SD, None below two) and ``n_nonsensical`` of
    the sample's ratings in scope, as ``with_stats`` would annotate them."""
    scores = decided_scores(ratings)
    sample.n_ratings = len(ratings)  # type: ignore[attr-defined]  # page-only attributes
    sample.mean = sum(scores) / len(scores) if scores else None  # type: ignore[attr-defined]
    sample.sd = statistics.stdev(scores) if len(scores) > 1 else None  # type: ignore[attr-defined]
    sample.n_nonsensical = sum(r.nonsensical for r in ratings)  # type: ignore[attr-defined]


def rows_for(samples: list[Sample], *, ratings: RatingQuerySet) -> tuple[list[ItemRow], list]:
    """Ratings in scope and every finished run's prediction for the given samples (3
    queries); each sample gets the stats of its ratings in scope."""
    by_sample: dict[int, list[Rating]] = {}
    for rating in ratings.filter(sample__in=samples).order_by("sample_id", "position", "id"):
        by_sample.setdefault(rating.sample_id, []).append(rating)
    runs = [r for r in finished_runs() if any(s.split_id == r.split_id for s in samples)]
    preds = predictions_by_run(runs, [s.id for s in samples])
    rows = []
    for sample in samples:
        mine = by_sample.get(sample.id, [])
        _attach_stats(sample, mine)
        labels = decided_scores(mine)
        cells = []
        for run in runs:
            value = preds[run.id].get(sample.id)
            inside = is_within_sd(value, labels) if value is not None and labels else None
            cells.append(Cell(run, value, inside))
        rows.append(ItemRow(sample, mine, cells))
    return rows, runs


@dataclass
class SetupGrid:
    setup: Setup
    senses: list  # the setup's senses, in id order
    stories: list  # open-ended first, then the endings in id order
    cells: dict  # (story_id, sense_id) -> ItemRow
    runs: list[ModelRun]
    kind: str  # the setup's task kind (its ratings' scale)

    def grid(self) -> list[tuple]:
        """Rows of ``(sense, [ItemRow or None per story])`` for the template."""
        return [
            (sense, [self.cells.get((st.id, sense.id)) for st in self.stories])
            for sense in self.senses
        ]


def setup_grid(setup_id: int, *, scope: RatingScope) -> SetupGrid | None:
    """The 2 senses x 3 story variants of one setup (5 queries), with the ratings of the
    scope (of the setup's own task kind)."""
    setup = Setup.objects.select_related("homonym").filter(pk=setup_id).first()
    if setup is None:
        return None
    samples = list(
        Sample.objects.filter(story__setup=setup)
        .with_related()
        .order_by("story_id", "sense_id", "split_id")
    )
    kind = samples[0].split.dataset.task_kind if samples else scope.kind
    rows, runs = rows_for(samples, ratings=replace(scope, kind=kind).ratings())
    # a relatedness or use-pair sample has no sense: its setup has no sense rows
    senses = sorted(
        {s.sense.id: s.sense for s in samples if s.sense is not None}.values(), key=lambda s: s.id
    )
    stories = sorted(
        {s.story.id: s.story for s in samples}.values(), key=lambda st: (bool(st.ending), st.id)
    )
    cells = {(row.sample.story_id, row.sample.sense_id): row for row in rows}
    return SetupGrid(setup, senses, stories, cells, runs, kind or TaskKind.PLAUSIBILITY)
