"""Post-processing as derived runs: calibration, squashing, pair blending and stacking.

A derived run takes source runs on one split and writes new predictions for the same
samples. Its transform is fitted in one of three ways, recorded in ``fitted_on``:

- ``"split"``: on source runs over *another* split (``fit_sources``, same backends, same
  order), with that split's human ratings;
- ``"oof"``: out-of-fold on the target split itself, folds grouped by homonym, so each
  sample's value comes from a fit that never saw it nor any story with its homonym;
- ``"none"``: with the parameters given, nothing fitted.

Fitting on the samples a run is scored on is refused (:class:`FitOnScoredSamples`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.db import transaction

from ambisite.finite import undefined
from annotations.models import Rating, Sample
from predictions.calibration import TRANSFORMS, out_of_fold, own_and_partner
from predictions.errors import FitOnScoredSamples
from predictions.ml.texts import partners
from predictions.models import DERIVED_PREFIX, ModelRun, Prediction
from predictions.runs.scoring import run_score
from predictions.runs.services import default_name


def _samples(split_id: int) -> list[tuple[int, int, str]]:
    """(pk, story_id, homonym) in file order."""
    return list(
        Sample.objects.filter(split_id=split_id)
        .order_by("position")
        .values_list("pk", "story_id", "story__setup__homonym__form")
    )


def _labels(pks: Sequence[int]) -> dict[int, list[int]]:
    labels: dict[int, list[int]] = {}
    rows = Rating.objects.valid().filter(sample_id__in=pks).order_by("position", "id")
    for pk, value in rows.values_list("sample_id", "score"):
        labels.setdefault(pk, []).append(value)
    return labels


def _partners(rows: Sequence[tuple[int, int, str]]) -> list[int | None]:
    """Index of the other sense of the same story (None when the story has one sense)."""
    return partners([story_id for _, story_id, _ in rows])


def _features(kind: str, runs: Sequence[ModelRun]) -> tuple[list, np.ndarray]:
    """Rows predicted by every run, and their feature matrix for ``kind``."""
    split_ids = {run.split_id for run in runs}
    if len(split_ids) != 1:
        raise ValueError("the source runs of a derived run must share one split")
    values = [dict(run.predictions.values_list("sample_id", "score")) for run in runs]
    rows = [r for r in _samples(split_ids.pop()) if all(r[0] in v for v in values)]
    if not rows:
        raise ValueError("the source runs have no predictions in common")
    X = np.array([[v[r[0]] for v in values] for r in rows], dtype=float)
    if kind == "pair_blend":
        X = own_and_partner(X[:, 0], _partners(rows))
    return rows, X


def _check_sources(kind: str, sources, fit_sources, fit: str) -> None:
    transform = TRANSFORMS.get(kind)
    if transform is None:
        raise ValueError(f"unknown post-processing {kind!r} (known: {', '.join(TRANSFORMS)})")
    if not sources or (transform.columns and len(sources) != transform.columns):
        raise ValueError(f"{kind} takes {transform.columns or 'one or more'} source run(s)")
    if fit not in ("split", "oof", "none"):
        raise ValueError("fit must be 'split', 'oof' or 'none'")
    if fit == "split":
        if not fit_sources or len(fit_sources) != len(sources):
            raise ValueError("fit='split' needs one fit run per source run")
        if {r.split_id for r in fit_sources} & {r.split_id for r in sources}:
            raise FitOnScoredSamples("the fit runs are on the split being scored; use fit='oof'")


def _fit_on_split(transform, kind: str, rows, X, fit_sources) -> tuple[np.ndarray, dict]:
    fit_rows, fit_X = _features(kind, fit_sources)
    if {r[0] for r in fit_rows} & {r[0] for r in rows}:
        raise FitOnScoredSamples("the fit samples overlap the samples being scored")
    labels = _labels([r[0] for r in fit_rows])
    keep = [i for i, r in enumerate(fit_rows) if labels.get(r[0])]
    fitted = transform.fit(fit_X[keep], [labels[fit_rows[i][0]] for i in keep])
    fitted_on = {
        "mode": "split",
        "split_id": fit_sources[0].split_id,
        "split": str(fit_sources[0].split),
        "fit_runs": [r.pk for r in fit_sources],
        "n_samples": len(keep),
        "params": _jsonable(fitted),
    }
    return transform.apply(fitted, X), fitted_on


def _fit_out_of_fold(transform, rows, X, sources, folds: int) -> tuple[np.ndarray, dict]:
    labels = _labels([r[0] for r in rows])
    if any(not labels.get(r[0]) for r in rows):
        raise ValueError("fit='oof' needs human ratings for every sample of the split")
    values, _ = out_of_fold(transform, X, [labels[r[0]] for r in rows], [r[2] for r in rows], folds)
    fitted_on = {
        "mode": "oof",
        "grouped_by": "homonym",
        "folds": folds,
        "split": str(sources[0].split),
        "split_id": sources[0].split_id,
    }
    return values, fitted_on


def derive_values(
    kind: str, sources, *, fit: str, fit_sources=None, params: dict | None = None, folds: int = 5
) -> tuple[list, np.ndarray, dict]:
    """(target rows, derived values, fitted_on) without writing anything."""
    _check_sources(kind, sources, fit_sources, fit)
    transform = TRANSFORMS[kind]
    rows, X = _features(kind, sources)
    if fit == "none":
        values, fitted_on = transform.apply(params or {}, X), {"mode": "none"}
    elif fit == "split":
        values, fitted_on = _fit_on_split(transform, kind, rows, X, fit_sources)
    else:
        values, fitted_on = _fit_out_of_fold(transform, rows, X, sources, folds)
    bad = sum(undefined(v) for v in np.asarray(values, dtype=float).tolist())
    if bad:  # given parameters can divide by zero, and the database refuses such a prediction
        raise ValueError(f"{bad} of {len(rows)} derived values are NaN or infinite")
    return rows, values, {**fitted_on, "runs": [r.pk for r in sources]}


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return float(value) if isinstance(value, (np.floating, np.integer)) else value


@transaction.atomic
def run_derive(
    *,
    name: str,
    kind: str,
    sources: Sequence[ModelRun],
    fit: str = "oof",
    fit_sources: Sequence[ModelRun] | None = None,
    params: dict | None = None,
    folds: int = 5,
    created_by=None,
) -> ModelRun:
    """Create a finished, scored derived run (see the module docstring for ``fit``)."""
    rows, values, fitted_on = derive_values(
        kind, sources, fit=fit, fit_sources=fit_sources, params=params, folds=folds
    )
    run = ModelRun.objects.create(
        name=default_name(name, kind, of=[r.pk for r in sources]),
        backend=DERIVED_PREFIX + kind,
        params={"kind": kind, "fit": fit, "sources": [r.pk for r in sources], **(params or {})},
        split_id=sources[0].split_id,
        status=ModelRun.Status.SUCCEEDED,
        done=len(rows),
        total=len(rows),
        fitted_on=fitted_on,
        model_version=" + ".join(r.name for r in sources)[:200],
        created_by=created_by,
    )
    Prediction.objects.bulk_create(
        [Prediction(run=run, sample_id=r[0], score=float(v)) for r, v in zip(rows, values)],
        batch_size=1000,
    )
    run_score(run=run)
    return run
