"""Prediction exports in the official format: ``{"id": "0", "prediction": 2.5}`` per line."""

from __future__ import annotations

import json
from collections.abc import Iterator

from predictions.models import IMPORT_BACKEND, ModelRun


def iter_predictions_jsonl(run: ModelRun) -> Iterator[str]:
    """The run's predictions; an imported run comes back exactly as it was uploaded.

    For imported runs ``raw_output`` holds the number as written in the file; it is used only
    when it still parses to the stored score, so model output text never leaks into a file.
    """
    imported = run.backend == IMPORT_BACKEND
    rows = (
        run.predictions.order_by("sample__position")
        .values_list("sample__dataset_id", "score", "raw_output")
        .iterator(2000)
    )
    for dataset_id, value, raw_output in rows:
        if imported and _same_number(raw_output, value):
            yield f'{{"id": {json.dumps(dataset_id)}, "prediction": {raw_output}}}\n'
        else:
            yield json.dumps({"id": dataset_id, "prediction": value}) + "\n"


def _same_number(text: str, value: float) -> bool:
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError):
        return False
    return isinstance(parsed, (int, float)) and not isinstance(parsed, bool) and parsed == value
