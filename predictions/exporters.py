"""Prediction exports in the official format: ``{"id": "0", "prediction": 2.5}`` per line."""

from __future__ import annotations

import json
from collections.abc import Iterator

from .models import ModelRun


def iter_predictions_jsonl(run: ModelRun, *, raw: bool = False) -> Iterator[str]:
    """With ``raw``, the number is written as stored in ``raw_output`` (the uploaded text of an
    imported run), so that an uploaded file comes back byte for byte."""
    rows = (
        run.predictions.order_by("sample__position")
        .values_list("sample__dataset_id", "score", "raw_output")
        .iterator(2000)
    )
    for dataset_id, value, raw_output in rows:
        if raw and raw_output:
            yield f'{{"id": {json.dumps(dataset_id)}, "prediction": {raw_output}}}\n'
        else:
            yield json.dumps({"id": dataset_id, "prediction": value}) + "\n"
