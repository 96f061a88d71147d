"""Charts as metric objects: each has a slug, a title and a ``data(params)`` method that the
JSON endpoint ``/dashboards/charts/<slug>.json`` serves; the browser draws it with Chart.js.
"""

from __future__ import annotations

import numpy as np
from django.db.models import BooleanField, Count, ExpressionWrapper, Q

from annotations.models import Homonym, Rating, Sample
from annotations.official import is_within_sd, label_mean, label_sd
from predictions.models import ModelRun

from . import leaderboard
from .forms import sample_filter
from .selectors import finished_runs, labels_by_sample, predictions_by_run, sample_stats

LABELS = [1, 2, 3, 4, 5]
MAX_POINTS = 3000  # a scatter of more points tells no more and slows the browser


class Chart:
    slug = ""
    title = ""
    kind = "bar"

    def data(self, params) -> dict:  # pragma: no cover - the contract
        raise NotImplementedError

    def payload(self, params) -> dict:
        return {"slug": self.slug, "title": self.title, "kind": self.kind, **self.data(params)}


class RatingHistogram(Chart):
    slug, title = "rating-histogram", "Ratings by score (open-ended vs ended stories)"

    def data(self, params) -> dict:
        form = sample_filter(params)
        is_open = ExpressionWrapper(Q(sample__story__ending=""), output_field=BooleanField())
        counts = {True: [0] * 5, False: [0] * 5}
        rows = (
            form.ratings()
            .annotate(is_open=is_open)
            .order_by()
            .values("score", "is_open")
            .annotate(n=Count("id"))
            .values_list("score", "is_open", "n")
        )
        for score, open_, n in rows:
            counts[bool(open_)][score - 1] += n
        return {
            "labels": LABELS,
            "series": [
                {"name": "open-ended", "values": counts[True]},
                {"name": "ended", "values": counts[False]},
            ],
        }


class HomonymSD(Chart):
    slug, title = "homonym-sd", "Mean SD of the ratings per homonym (highest 25)"

    def data(self, params) -> dict:
        form = sample_filter(params)
        stats = sample_stats(
            form.samples(),
            include_excluded=form.keep_excluded,
            narrowed=form.filters_samples,
            columns=("id", "story__setup__homonym_id"),
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

    def data(self, params) -> dict:
        run = ModelRun.objects.finished().filter(pk=_int(params.get("run"))).first()
        if run is None:
            return {"points": [], "run": None}
        preds = predictions_by_run([run])[run.id]
        ids = sorted(preds)
        chosen = ids[:: max(1, len(ids) // MAX_POINTS)]  # evenly spread, deterministic
        form = sample_filter(params)
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

    def data(self, params) -> dict:
        part = params.get("part") if params.get("part") in ("open", "ended") else "all"
        keep = sample_filter(params).keep_excluded
        runs = leaderboard.runs_data(finished_runs(), include_excluded=keep)
        dists = [(d.run, leaderboard.distributions(d)) for d in runs if d.labels]
        series = [{"name": run.name, "values": _percent(d[f"model_{part}"])} for run, d in dists]
        if dists:  # the humans of the first run's split
            series.append({"name": "humans", "values": _percent(dists[0][1][f"human_{part}"])})
        return {"labels": LABELS, "series": series, "part": part}


class SetupHistograms(Chart):
    slug, title = "setup-histograms", "Ratings per cell of a setup"

    def data(self, params) -> dict:
        setup_id = _int(params.get("setup")) or 0  # no setup: no ids match, empty cells
        ratings = Rating.objects.filter(sample__story__setup_id=setup_id)
        ratings = ratings if sample_filter(params).keep_excluded else ratings.valid()
        cells: dict[int, list[int]] = {
            sid: [0] * 5
            for sid in Sample.objects.filter(story__setup_id=setup_id).values_list("id", flat=True)
        }
        for sample_id, score in ratings.order_by().values_list("sample_id", "score"):
            cells[sample_id][score - 1] += 1
        return {"labels": LABELS, "cells": {str(k): v for k, v in cells.items()}}


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


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
