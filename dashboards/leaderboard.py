"""The model leaderboard: every finished run next to the humans, live.

Scores are recomputed with the official metrics against the current human ratings (valid
raters only unless the toggle says otherwise), so they match ``run.scores`` as long as no
exclusion changed since the run was scored.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from annotations.models import Rating, Sample
from predictions import comparison
from predictions.evaluation import Score, label_mean
from predictions.models import ModelRun

from .selectors import finished_runs, labels_by_sample, predictions_by_run, sample_meta


@dataclass
class RunData:
    """A run's predictions aligned with the human labels of its rated samples."""

    run: ModelRun
    sample_ids: list[int]
    labels: list[list[int]]
    preds: list[float]
    ended: list[bool]
    setups: list[int]


@dataclass
class RunRow:
    data: RunData
    parts: dict[str, Score | None]
    distribution: dict[str, list[float]]

    @property
    def run(self) -> ModelRun:
        return self.data.run


def _ratings(runs: list[ModelRun], include_excluded: bool) -> QuerySet[Rating]:
    ratings = Rating.objects.filter(sample__split__in={r.split_id for r in runs})
    return ratings if include_excluded else ratings.valid()


def runs_data(runs: list[ModelRun], *, include_excluded: bool = False) -> list[RunData]:
    """Four queries in all, whatever the number of runs and samples."""
    if not runs:
        return []
    labels = labels_by_sample(_ratings(runs, include_excluded))
    meta = sample_meta(Sample.objects.filter(split__in={r.split_id for r in runs}))
    preds = predictions_by_run(runs)
    out = []
    for run in runs:
        ids = [sid for sid in meta.ids if sid in preds[run.id] and labels.get(sid)]
        out.append(
            RunData(
                run=run,
                sample_ids=ids,
                labels=[labels[sid] for sid in ids],
                preds=[preds[run.id][sid] for sid in ids],
                ended=[not meta.is_open[sid] for sid in ids],
                setups=[meta.setup[sid] for sid in ids],
            )
        )
    return out


def distributions(data: RunData) -> dict[str, list[float]]:
    """Table 6: rounded predictions and rounded human means, for all/open/ended stories."""
    means = [label_mean(lab) for lab in data.labels]
    out = {}
    for name, want in (("all", None), ("open", False), ("ended", True)):
        keep = [i for i, e in enumerate(data.ended) if want is None or e is want]
        out[f"model_{name}"] = comparison.label_distribution([data.preds[i] for i in keep])
        out[f"human_{name}"] = comparison.label_distribution([means[i] for i in keep])
    return out


def leaderboard(*, include_excluded: bool = False) -> list[RunRow]:
    """Finished runs, best accuracy first; runs without rated samples come last."""
    rows = []
    for data in runs_data(finished_runs(), include_excluded=include_excluded):
        if not data.labels:
            rows.append(RunRow(data, {"all": None, "open": None, "ended": None}, {}))
            continue
        parts = comparison.split_by_ending(data.labels, data.preds, data.ended)
        rows.append(RunRow(data, parts, distributions(data)))
    return sorted(rows, key=lambda r: -(r.parts["all"].accuracy if r.parts["all"] else -1))


def intervals(*, include_excluded: bool = False, n_boot: int = 1000, seed: int = 0) -> dict:
    """Bootstrap 95% intervals (setups resampled) of each finished run's figures."""
    out = {}
    for data in runs_data(finished_runs(), include_excluded=include_excluded):
        if len(data.labels) >= 3:
            out[data.run.id] = comparison.run_intervals(
                data.labels, data.preds, data.setups, n_boot=n_boot, seed=seed
            )
    return out


def compare(run_a: ModelRun, run_b: ModelRun, *, include_excluded: bool = False, **kw):
    """Paired comparison of two runs on the samples both predicted and humans rated."""
    a, b = runs_data([run_a, run_b], include_excluded=include_excluded)
    b_pred = dict(zip(b.sample_ids, b.preds))
    keep = [i for i, sid in enumerate(a.sample_ids) if sid in b_pred]
    if len(keep) < 3:
        return None
    return comparison.paired_comparison(
        [a.labels[i] for i in keep],
        [a.preds[i] for i in keep],
        [b_pred[a.sample_ids[i]] for i in keep],
        [a.setups[i] for i in keep],
        **kw,
    )
