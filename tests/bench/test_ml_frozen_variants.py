"""bench/ml_frozen_variants.py's feature blocks on a tiny real subset (the real MiniLM)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import ml_frozen_variants as variants  # noqa: E402

from predictions.ml.features import partner_index  # noqa: E402
from predictions.ml.texts import setup_key  # noqa: E402


@pytest.fixture(scope="module")
def samples() -> list[dict]:
    """The first two setups of train (12 samples: 6 stories judged on two senses)."""
    data = list(json.loads((REPO / "data/ambistory/train.json").read_text()).values())
    keys = []
    for s in data:
        if setup_key(s) not in keys:
            keys.append(setup_key(s))
    return [s for s in data if setup_key(s) in keys[:2]]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(variants, "CACHE", str(tmp_path / "cache"))


def test_diag_features_are_opposite_for_the_two_senses_of_a_story(samples):
    X = variants.diag_features(samples)
    assert X.shape == (len(samples), 3 * 384)
    partners = partner_index(samples)
    assert all(p is not None for p in partners)
    for i, p in enumerate(partners):
        assert np.allclose(X[i], -X[p], atol=1e-6)
    assert np.abs(X).sum() > 0
    alone = variants.diag_features(samples[:1])  # no other sense: nothing to contrast
    assert np.allclose(alone, 0)


def test_layer_columns_are_cosines_cached_under_their_own_keys(samples, tmp_path):
    cols = variants.layer_columns(samples, tmp_path)
    assert cols.shape == (len(samples), len(variants.TOKEN_PAIRS))
    assert np.all(np.abs(cols) <= 1 + 1e-5)
    story_example = cols[:, 0]  # the homonym in the story against it in the example
    assert 0.2 < float(story_example.mean()) < 1.0
    with np.load(tmp_path / "layer_tokens.npz") as stored:
        assert len(stored.files) > 0
    assert np.allclose(variants.layer_columns(samples, tmp_path), cols)  # from the cache


def test_every_variant_is_registered_with_base(tmp_path):
    table = variants.variants(tmp_path)
    assert {"base", "layers-add", "layers-replace", "alpha-inner", "alpha-10"} <= set(table)
    assert {"dominance", "diag-bilinear"} <= set(table)
    assert all(callable(fit_predict) for fit_predict in table.values())
