"""Trained-model ids are looked up by the run loop (predictions.runs.artifacts), so backends only
ever receive a path (CONTRIBUTING: backends get an artifact path, never a run or a query)."""

from __future__ import annotations

from pathlib import Path

import pytest

from predictions.backends import get_backend
from predictions.models import ModelRun, TrainedModel
from predictions.runs.artifacts import backend_for, with_artifact_paths
from predictions.runs.services import trained_model_create
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def trained(settings, tmp_path) -> TrainedModel:
    settings.ARTIFACT_ROOT = str(tmp_path)
    job = trained_model_create(name="bi", split=small_split("train", setups=2), kind="biencoder")
    TrainedModel.objects.filter(pk=job.pk).update(
        status=ModelRun.Status.SUCCEEDED, path="biencoder/7"
    )
    return TrainedModel.objects.get(pk=job.pk)


def test_a_trained_model_id_becomes_its_directory(trained, tmp_path):
    directory = str(Path(tmp_path) / "biencoder/7")
    assert with_artifact_paths("biencoder", {"model": trained.pk, "batch_size": 8}) == {
        "path": directory,
        "batch_size": 8,
    }
    assert with_artifact_paths("quality", {"encoder": str(trained.pk)}) == {"encoder": directory}
    for keep in ({"encoder": "train"}, {"encoder": "none"}, {"path": "quality"}):
        assert with_artifact_paths("quality", keep) == keep
    assert with_artifact_paths("constant", {"value": 3}) == {"value": 3}
    assert backend_for("crossencoder", {"model": trained.pk}).path == directory


def test_an_unfinished_trained_model_is_refused_by_id(trained):
    TrainedModel.objects.filter(pk=trained.pk).update(status=ModelRun.Status.RUNNING)
    with pytest.raises(ValueError, match=f"trained model {trained.pk} is running"):
        with_artifact_paths("crossencoder", {"model": trained.pk})


def test_a_backend_given_an_id_it_was_not_handed_a_path_for_says_so():
    backend = get_backend("crossencoder", model=12)  # built without the run loop's lookup
    with pytest.raises(ValueError, match="12 is a trained model's id"):
        backend.prepare()
