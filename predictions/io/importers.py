"""Import of an official-format predictions jsonl as a finished model run.

Validation follows the official scorer's rules (:mod:`predictions.evaluation`): every line
is JSON with a known id and a numeric prediction, no id twice, none missing. Errors name the
line and the id, and a bad file stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from django.conf import settings
from django.db import transaction

from ambisite.db.statistics import analyze_after_commit
from ambisite.request_body import announced_length, upload_body_limit
from annotations.models import Split
from annotations.safe_input import TooLarge
from annotations.signals import bulk_change_announce
from predictions.evaluation import ScoringError, parse_predictions
from predictions.models import IMPORT_BACKEND, ModelRun, Prediction
from predictions.runs.scoring import run_score


def request_too_large(request) -> bool:
    """Whether a request announces a body beyond ``UPLOAD_MAX_BYTES`` and its form (checked
    before the body is read, so a huge upload is refused without being received; the
    request-body middleware refuses it earlier still, this covers a view called without it)."""
    return announced_length(request) > upload_body_limit()


def upload_refused(request) -> bool:
    """After the body was parsed: whether :class:`~predictions.web.upload_handlers.UploadCapHandler`
    stopped a file at the cap."""
    return bool(getattr(request, "upload_too_large", False))


def upload_lines(upload) -> Iterable[bytes]:
    """An uploaded file as a stream of lines, refused (:class:`TooLarge`) over the cap."""
    if upload.size is None or upload.size > settings.UPLOAD_MAX_BYTES:
        raise TooLarge(settings.UPLOAD_MAX_BYTES)
    upload.seek(0)
    return iter(upload)


def run_upload(
    *, split: Split, name: str, file: IO[bytes], created_by=None, capped: bool = True
) -> ModelRun:
    """A predictions file as a new, scored run: the one path of the API's upload, the
    upload page and the ``import_predictions`` command. An upload (``capped``) over
    ``UPLOAD_MAX_BYTES`` is refused unread (:class:`TooLarge`); a bad file stores nothing
    (:class:`ScoringError` naming the line and the id)."""
    lines = upload_lines(file) if capped else file
    return predictions_import(split=split, name=name, lines=lines, created_by=created_by)


@transaction.atomic
def predictions_import(
    *,
    split: Split,
    name: str,
    lines: Iterable[str | bytes],
    created_by=None,
    params: dict | None = None,
) -> ModelRun:
    """Create a succeeded run holding the file's predictions, scored if labels exist.

    ``lines`` is read once, as a stream (an uploaded or open binary file, or strings), under
    the rules of :mod:`annotations.safe_input`; only the parsed values are kept in memory.
    """
    ids = dict(split.samples.values_list("dataset_id", "id").order_by("position"))
    values = parse_predictions(lines, list(ids))  # raises ScoringError naming line/id
    if not values:
        raise ScoringError("the file holds no predictions: nothing to import")
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
            Prediction(run=run, sample_id=ids[key], score=float(v), raw_output=json.dumps(v))
            for key, v in values.items()
        ],
        batch_size=1000,
    )
    analyze_after_commit(len(values), Prediction)  # scored, and charted, from the start
    run_score(run=run)
    bulk_change_announce(kind=split.dataset.task_kind)
    return run


__all__ = [
    "ScoringError",
    "TooLarge",
    "predictions_import",
    "run_upload",
    "request_too_large",
    "upload_refused",
    "upload_lines",
]
