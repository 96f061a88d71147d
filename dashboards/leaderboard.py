"""The model leaderboard: every finished run next to the humans, live.

Scores are recomputed with the official metrics against the current human ratings (valid
raters only unless the toggle says otherwise), so they match ``run.scores`` as long as no
exclusion changed since the run was scored. The human labels arrive as per-sample counts of
each score (:func:`selectors.sample_counts`) and are scored in arrays (:mod:`.run_statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ambisite.arrays import flat_array
from annotations.models import Rating, RatingQuerySet, Sample, Split
from annotations.reference import LabelChanges, split_label_changes
from predictions.evaluation import Score
from predictions.models import ModelRun, Prediction

from . import run_statistics
from .cache import cached
from .forms import SampleFilterForm
from .run_statistics import PairedComparison, replicates
from .selectors import SCALE, finished_runs, lookup, sample_counts, sample_frame


@dataclass
class RunData:
    """A run's predictions aligned with the human labels of its rated samples."""

    run: ModelRun
    sample_ids: np.ndarray
    labels: run_statistics.Labels
    preds: np.ndarray
    ended: np.ndarray
    setups: np.ndarray


@dataclass
class RunRow:
    data: RunData
    parts: dict[str, Score | None]
    distribution: dict[str, list[float]]

    @property
    def run(self) -> ModelRun:
        return self.data.run


def runs_data(runs: list[ModelRun], *, ratings: RatingQuerySet | None = None) -> list[RunData]:
    """Four queries in all, whatever the number of runs and samples. ``ratings``: the human
    labels to score against (the page's scope; valid ratings by default)."""
    if not runs:
        return []
    splits = {r.split_id for r in runs}
    ratings = Rating.objects.valid() if ratings is None else ratings
    if Split.objects.exclude(id__in=splits).exists():  # else the join would filter nothing
        ratings = ratings.filter(sample__split__in=splits)
    rated, counts = sample_counts(ratings)
    frame = sample_frame(Sample.objects.filter(split__in=splits))
    query = Prediction.objects.filter(run__in=[r.id for r in runs]).order_by()
    preds = flat_array(query.values_list("run_id", "sample_id", "score"), 3, dtype=float)
    label_row, has_labels = lookup(rated, frame.id)
    out = []
    for run in runs:
        mine = preds[preds[:, 0] == run.id]
        mine = mine[np.argsort(mine[:, 1], kind="stable")]
        pred_row, has_pred = lookup(mine[:, 1].astype(np.int64), frame.id)
        keep = np.flatnonzero(has_labels & has_pred)
        out.append(
            RunData(
                run=run,
                sample_ids=frame.id[keep],
                labels=run_statistics.Labels(counts[label_row[keep]], SCALE),
                preds=mine[pred_row[keep], 2],
                ended=~frame.is_open[keep],
                setups=frame.setup[keep],
            )
        )
    return out


def scope_runs_data(form: SampleFilterForm) -> list[RunData]:
    """Every finished run's :class:`RunData` on the form's scope and filters: the costly
    part of the leaderboard (its four queries over the scope's ratings, samples and
    predictions), cached once per scope version and shared by the leaderboard page, its
    paired comparison, its intervals and the label-distribution chart, so that after a
    write only the first of them builds the arrays."""
    return cached("runs-data", form, lambda: runs_data(finished_runs(), ratings=form.ratings()))


def distributions(data: RunData) -> dict[str, list[float]]:
    """Table 6: rounded predictions and rounded human means, for all/open/ended stories."""
    means = data.labels.means
    out = {}
    for name, want in (("all", None), ("open", False), ("ended", True)):
        keep = np.ones(len(data.preds), bool) if want is None else data.ended == want
        out[f"model_{name}"] = run_statistics.label_distribution(data.preds[keep])
        out[f"human_{name}"] = run_statistics.label_distribution(means[keep])
    return out


def leaderboard(data: list[RunData]) -> list[RunRow]:
    """Finished runs, best accuracy first; runs without rated samples come last."""
    rows = []
    for run_data in data:
        if not len(run_data.labels):
            rows.append(RunRow(run_data, {"all": None, "open": None, "ended": None}, {}))
            continue
        parts = run_statistics.split_by_ending(run_data.labels, run_data.preds, run_data.ended)
        rows.append(RunRow(run_data, parts, distributions(run_data)))
    return sorted(rows, key=lambda r: -(r.parts["all"].accuracy if r.parts["all"] else -1))


def intervals(data: list[RunData], *, n_boot: int = 1000, seed: int = 0) -> dict:
    """Bootstrap 95% intervals (setups resampled) of each run's figures, with the number of
    replicates drawn (fewer than ``n_boot`` on large runs)."""
    out = {}
    for d in data:
        if len(d.labels) >= 3:
            found = run_statistics.run_intervals(
                d.labels, d.preds, d.setups, n_boot=n_boot, seed=seed
            )
            out[d.run.id] = {**found, "replicates": replicates(n_boot, len(d.preds))}
    return out


def compare(a: RunData, b: RunData, **kw) -> PairedComparison | None:
    """Paired comparison of two runs on the samples both predicted and humans rated."""
    order = np.argsort(b.sample_ids, kind="stable")
    row, found = lookup(b.sample_ids[order], a.sample_ids)
    keep = np.flatnonzero(found)
    if len(keep) < 3:
        return None
    b_preds = b.preds[order][row[keep]]
    return run_statistics.paired_comparison(
        a.labels.take(keep), a.preds[keep], b_preds, a.setups[keep], **kw
    )


def changed_labels(data: list[RunData]) -> list[tuple[Split, LabelChanges]]:
    """The runs' splits whose labels differ from their imported state (one query), for the
    notice above the scores."""
    splits = {d.run.split_id: d.run.split for d in data}
    changes = split_label_changes(sorted(splits))
    return [(splits[pk], found) for pk, found in changes.items() if found.differ]
