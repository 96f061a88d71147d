"""Charts as metric objects: each has a slug, a title and a ``data(params)`` method that the
JSON endpoint ``/dashboards/charts/<slug>.json`` serves; the browser draws it with Chart.js.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
from django.db.models import BooleanField, Count, ExpressionWrapper, Q

from ambisite.query import id_param
from annotations import kinds
from annotations.models import Homonym, Sample, score_range
from annotations.official import is_within_sd, label_mean, label_sd
from predictions.models import ModelRun

from . import leaderboard
from .cache import cached
from .forms import SampleFilterForm, sample_filter
from .selectors import labels_by_sample, predictions_by_run, sample_stats

LABELS = [1, 2, 3, 4, 5]  # the leaderboard's rounded plausibility labels
MAX_POINTS = 3000  # a scatter of more points tells no more and slows the browser


class Chart:
    slug = ""
    title = ""
    kind = "bar"
    params: tuple[str, ...] = ()  # the chart's own query parameters, besides the scope's
    reads_runs = True  # False only for a chart that reads no model run or prediction

    def data(self, form: SampleFilterForm, params) -> dict:  # pragma: no cover - the contract
        raise NotImplementedError

    def payload(self, params) -> dict:
        """The chart's JSON, with the scope it counted in words; an unknown parameter or a
        bad value is a ``BadRequest`` (400) naming it."""
        form = sample_filter(params, known=self.params)
        own = {name: str(params.get(name, "")) for name in self.params}
        found = cached(
            f"chart-{self.slug}",
            form,
            lambda: self.data(form, params),
            reads_runs=self.reads_runs,
            **own,
        )
        head = {"slug": self.slug, "title": self.title, "kind": self.kind}
        return {**head, **found, "scope": form.rating_scope.describe()}


@dataclass(frozen=True)
class KindScale:
    """A task kind's scores as the charts show them, from the kind's own definition."""

    kind: str
    low: int
    high: int

    @property
    def labels(self) -> list[int]:
        return list(range(self.low, self.high + 1))

    @property
    def name(self) -> str:
        return kinds.kind(self.kind).axis

    @property
    def items(self) -> str:
        return kinds.kind(self.kind).items

    @property
    def by_ending(self) -> bool:
        """Only AmbiStory's plausibility stories come open-ended or with an ending."""
        return kinds.kind(self.kind).by_ending


def kind_scale(kind: str) -> KindScale:
    return KindScale(kind, *score_range(kind))


def score_histogram(rows: Iterable[tuple[int, bool, int]], kind: str) -> dict:
    """Counts of ``(score, is_open, n)`` rows on the kind's own scale: open-ended and ended
    stories for plausibility, one series otherwise."""
    scale = kind_scale(kind)
    names: tuple[str, ...] = ("open-ended", "ended") if scale.by_ending else ("ratings",)
    counts = {name: [0] * len(scale.labels) for name in names}
    for score, is_open, n in rows:
        name = names[0] if is_open or not scale.by_ending else names[1]
        counts[name][score - scale.low] += n
    return {
        "title": f"Ratings by {scale.name}",
        "labels": scale.labels,
        "scale_name": scale.name,
        "axis": f"{scale.name} ({scale.low}-{scale.high})",
        "items": scale.items,
        "series": [{"name": name, "values": values} for name, values in counts.items()],
    }


class RatingHistogram(Chart):
    slug, title = "rating-histogram", "Ratings by score"
    reads_runs = False

    def data(self, form: SampleFilterForm, params) -> dict:
        is_open = ExpressionWrapper(Q(sample__story__ending=""), output_field=BooleanField())
        rows = (
            form.ratings()
            .annotate(is_open=is_open)
            .order_by()
            .values("score", "is_open")
            .annotate(n=Count("id"))
            .values_list("score", "is_open", "n")
        )
        return score_histogram(rows, form.task_kind)


class HomonymSD(Chart):
    slug, title = "homonym-sd", "Mean SD of the ratings per homonym (highest 25)"
    reads_runs = False

    def data(self, form: SampleFilterForm, params) -> dict:
        stats = sample_stats(
            form.samples(), ratings=form.ratings(), columns=("id", "story__setup__homonym_id")
        )
        sd, homonym = stats.sd, stats.columns["story__setup__homonym_id"]
        known = ~np.isnan(sd)
        ids, index = np.unique(homonym[known], return_inverse=True)
        means = np.bincount(index, sd[known]) / np.bincount(index) if len(ids) else ids
        forms = dict(Homonym.objects.filter(pk__in=ids.tolist()).values_list("id", "form"))
        ranked = sorted(((m, forms[h]) for h, m in zip(ids.tolist(), means.tolist())), reverse=True)
        return {
            "labels": [k for _, k in ranked[:25]],
            "series": [{"name": "mean SD", "values": [round(m, 4) for m, _ in ranked[:25]]}],
        }


class ModelVsHuman(Chart):
    slug, title, kind = "model-vs-human", "Prediction vs human mean", "scatter"
    params = ("run",)

    def data(self, form: SampleFilterForm, params) -> dict:
        run = ModelRun.objects.finished().filter(pk=id_param(params, "run")).first()
        if run is None:
            return {"points": [], "run": None}
        # the filter's samples only: the spread and the count are of the predictions shown
        samples = form.samples() if form.filters_samples else None
        preds = predictions_by_run([run], samples)[run.id]
        ids = sorted(preds)
        chosen = ids[:: max(1, len(ids) // MAX_POINTS)]  # evenly spread, deterministic
        labels = labels_by_sample(form.ratings().filter(sample_id__in=chosen))
        points = [
            {
                "x": label_mean(labels[sid]),
                "y": preds[sid],
                "sd": round(label_sd(labels[sid]), 4),
                "inside": is_within_sd(preds[sid], labels[sid]),
            }
            for sid in chosen
            if labels.get(sid)
        ]
        return {"run": {"id": run.id, "name": run.name}, "points": points, "n": len(ids)}


class LabelDistribution(Chart):
    slug, title = "label-distribution", "Rounded predictions vs rounded human means (%)"
    params = ("part",)

    def data(self, form: SampleFilterForm, params) -> dict:
        part = params.get("part") if params.get("part") in ("open", "ended") else "all"
        runs = leaderboard.scope_runs_data(form)
        dists = [(d.run, leaderboard.distributions(d)) for d in runs if d.labels]
        series = [{"name": run.name, "values": _percent(d[f"model_{part}"])} for run, d in dists]
        if dists:  # the humans of the first run's split
            series.append({"name": "humans", "values": _percent(dists[0][1][f"human_{part}"])})
        return {"labels": LABELS, "series": series, "part": part}


class SetupHistograms(Chart):
    slug, title = "setup-histograms", "Ratings per cell of a setup"
    reads_runs = False
    params = ("setup",)

    def data(self, form: SampleFilterForm, params) -> dict:
        """A cell per sample of the setup (as the page's grid), counting the ratings in
        scope only: a sample outside the scope's split has an empty cell."""
        setup_id = id_param(params, "setup") or 0  # no setup: no ids match, empty cells
        samples = Sample.objects.filter(story__setup_id=setup_id)
        kind = samples.values_list("split__dataset__task_kind", flat=True).first()
        scope = replace(form.rating_scope, kind=kind) if kind else form.rating_scope
        scale = kind_scale(scope.kind or form.task_kind)  # the setup's kind, not the default
        # as the grid's figures (``items.setup_grid``): ``scope.ratings(samples)`` would take
        # the setup's samples for the scope's own and drop the split filter
        ratings = scope.ratings().filter(sample__in=samples)
        cells = {sid: [0] * len(scale.labels) for sid in samples.values_list("id", flat=True)}
        for sample_id, score in ratings.order_by().values_list("sample_id", "score"):
            cells[sample_id][score - scale.low] += 1
        return {"labels": scale.labels, "cells": {str(k): v for k, v in cells.items()}}


def _percent(values: list[float]) -> list[float]:
    return [round(100 * v, 1) for v in values]


CHARTS: dict[str, Chart] = {
    chart.slug: chart
    for chart in (
        RatingHistogram(),
        HomonymSD(),
        ModelVsHuman(),
        LabelDistribution(),
        SetupHistograms(),
    )
}
