"""Prediction exports in the official format: ``{"id": "0", "prediction": 2.5}`` per line."""

from __future__ import annotations

import json
from collections.abc import Iterator

from .models import ModelRun


def iter_predictions_jsonl(run: ModelRun) -> Iterator[str]:
    rows = (
        run.predictions.order_by("sample__position")
        .values_list("sample__dataset_id", "score")
        .iterator(2000)
    )
    for dataset_id, value in rows:
        yield json.dumps({"id": dataset_id, "prediction": value}) + "\n"
