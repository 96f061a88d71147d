"""Training jobs: MiniLM fine-tuned on a split (cross- or bi-encoder), stored as an artifact.

The Celery task ``predictions.train_model`` calls :func:`trained_model_train` (queued by
:func:`predictions.runs.services.trained_model_create`); the model directory lands under
``settings.ARTIFACT_ROOT/<kind>/<id>`` and its training log is appended to
``TrainedModel.log`` epoch by epoch, so the page shows it as it grows. Only
:mod:`predictions.runs.tasks` (and the ``train_crossencoder`` command) import this module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db.models import F, Value
from django.db.models.functions import Concat
from django.utils import timezone

from predictions.models import ModelRun, TrainedModel
from predictions.runs.claims import short_error
from predictions.runs.rows import fit_rows, trained_splits

log = logging.getLogger(__name__)
Status = ModelRun.Status
Kind = TrainedModel.Kind


def _append_log(model_id: int, line: str) -> None:
    TrainedModel.objects.filter(pk=model_id).update(log=Concat(F("log"), Value(line + "\n")))


def trained_model_train(
    *, model_id: int, on_step: Callable[[int, int], None] | None = None
) -> TrainedModel:
    """Run the training now (in the worker); the row records status, path and log.
    ``on_step(done, steps)`` follows the optimiser steps (the command's progress lines)."""
    claimed = TrainedModel.objects.filter(pk=model_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    model = TrainedModel.objects.select_related("split").get(pk=model_id)
    if not claimed:
        return model
    try:
        _train(model, on_step)
    except Exception as exc:  # recorded on the row (one short line); the worker lives on
        log.exception("training job %s failed", model_id)  # the traceback: the log only
        TrainedModel.objects.filter(pk=model_id).update(
            status=Status.FAILED, error=short_error(exc), finished_at=timezone.now()
        )
    model.refresh_from_db()
    return model


def _train(model: TrainedModel, on_step: Callable[[int, int], None] | None = None) -> None:
    from predictions.ml import biencoder, crossencoder

    train = biencoder.train if model.kind == Kind.BIENCODER else crossencoder.train

    splits = trained_splits(model)
    samples = fit_rows(splits)
    limit = model.params.get("limit")
    if limit:
        samples = samples[: int(limit)]
    relative = f"{model.kind}/{model.pk}"
    model.path = relative
    model.save(update_fields=["path"])
    _append_log(model.pk, f"training on {len(samples)} samples of {'+'.join(map(str, splits))}")
    names = TrainedModel.TRAIN_PARAMS[Kind(model.kind)]
    kwargs = {k: model.params[k] for k in names if k in model.params}

    def log(line: str) -> None:
        _append_log(model.pk, line)

    train(samples, model.directory(), log=log, on_step=on_step, **kwargs)
    _append_log(model.pk, f"saved to {relative}")
    TrainedModel.objects.filter(pk=model.pk).update(
        status=Status.SUCCEEDED, n_samples=len(samples), finished_at=timezone.now()
    )
