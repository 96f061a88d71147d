"""Import of an official-format predictions jsonl as a finished model run.

Validation follows the official scorer's rules (:mod:`predictions.evaluation`): every line
is JSON with a known id and a numeric prediction, no id twice, none missing. Errors name the
line and the id, and a bad file stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from django.db import transaction

from annotations.models import Split

from .evaluation import ScoringError, parse_predictions
from .models import ModelRun, Prediction
from .services import run_score

IMPORT_BACKEND = "import"


def _raw_values(lines: list[str]) -> dict[str, str]:
    """The prediction as written in the file, so an export can reproduce it exactly."""
    raw: dict[str, str] = {}
    for line in lines:
        if not line.strip():
            continue
        obj = json.loads(line)
        raw[str(obj["id"])] = json.dumps(obj["prediction"])
    return raw


@transaction.atomic
def predictions_import(
    *,
    split: Split,
    name: str,
    lines: Iterable[str],
    created_by=None,
    params: dict | None = None,
) -> ModelRun:
    """Create a succeeded run holding the file's predictions, scored if labels exist."""
    lines = list(lines)
    ids = dict(split.samples.values_list("dataset_id", "id").order_by("position"))
    values = parse_predictions(lines, list(ids))  # raises ScoringError naming line/id
    raw = _raw_values(lines)
    run = ModelRun.objects.create(
        name=name,
        backend=IMPORT_BACKEND,
        params=params or {},
        split=split,
        status=ModelRun.Status.SUCCEEDED,
        done=len(values),
        total=len(values),
        created_by=created_by,
        model_version="external predictions file",
    )
    Prediction.objects.bulk_create(
        [
            Prediction(run=run, sample_id=ids[key], score=float(v), raw_output=raw[key])
            for key, v in values.items()
        ],
        batch_size=1000,
    )
    run_score(run=run)
    return run


__all__ = ["ScoringError", "predictions_import", "IMPORT_BACKEND"]
