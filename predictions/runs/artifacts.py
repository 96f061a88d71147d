"""Trained-model ids in a run's parameters, looked up and handed to backends as directories.

A backend receives an artifact path, never a run or a query (CONTRIBUTING.md): a backend
class names the parameters that may hold a ``TrainedModel`` id (``artifact_params``), and
whoever builds a backend to predict (the run loop, the ``predict`` and ``crossvalidate``
commands) builds it through :func:`backend_for`, which swaps each id for its directory.
"""

from __future__ import annotations

from pathlib import Path

from predictions.backends import PredictorBackend, backend_class, get_backend
from predictions.models import ModelRun, TrainedModel


def trained_model_dir(model_id: int) -> Path:
    """The directory of the succeeded training job ``model_id``, else ValueError."""
    row = TrainedModel.objects.get(pk=int(model_id))
    if row.status != ModelRun.Status.SUCCEEDED:
        raise ValueError(f"trained model {row.pk} is {row.status}, not succeeded")
    return row.directory()


def _is_model_id(value: object) -> bool:
    return isinstance(value, int) or (isinstance(value, str) and value.isdigit())


def with_artifact_paths(name: str, params: dict) -> dict:
    """``params`` with every trained-model id the backend ``name`` takes replaced by the
    directory its ``artifact_params`` say (e.g. ``model=7`` becomes ``path=<dir>``)."""
    resolved = dict(params)
    for field, target in backend_class(name).artifact_params.items():
        value = resolved.get(field)
        if value is None or not _is_model_id(value):
            continue
        del resolved[field]
        resolved[target] = str(trained_model_dir(int(value)))
    return resolved


def backend_for(name: str, params: dict) -> PredictorBackend:
    """The backend ``name`` built to predict: trained-model ids looked up here."""
    return get_backend(name, **with_artifact_paths(name, params))
